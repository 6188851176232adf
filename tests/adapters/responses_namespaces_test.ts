/**
 * OpenAI Responses' namespaces of deferred tools (SPEC §10.3): one per
 * source label, named from its last segment, described from its tools'
 * names, in the canonical order of each label's first tool.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { namespacesOf } from "../../adapters/openai/responses/deferred.ts";
import { tool } from "../fixtures.ts";

describe("Responses namespaces of deferred tools", () => {
  it("groups by label, names and numbers clashes, describes from names", () => {
    const namespaces = namespacesOf({
      deferredTools: [
        tool("crm_get_contact"),
        tool("crm_log_call"),
        tool("gh_create_issue"),
        tool("loose_tool"),
        tool("other_crm_find"),
      ],
      deferredSources: {
        crm_get_contact: "registry/crm",
        crm_log_call: "registry/crm",
        gh_create_issue: "registry/code host",
        other_crm_find: "plugins/crm",
      },
    }, false);
    assert.deepEqual(
      namespaces.map(({ name, tools }) => [name, tools.map((fn) => fn.name)]),
      [
        ["crm", ["crm_get_contact", "crm_log_call"]],
        ["code_host", ["gh_create_issue"]],
        ["deferred", ["loose_tool"]],
        ["crm_2", ["other_crm_find"]],
      ],
    );
    assert.equal(
      namespaces[0].description,
      "Tools of registry/crm: crm, call, contact, get, log.",
    );
    for (const namespace of namespaces) {
      for (const fn of namespace.tools) {
        assert.equal(fn.defer_loading, true);
        assert.equal(fn.strict, false);
      }
    }
  });
});
