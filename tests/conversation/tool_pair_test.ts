/**
 * The fixed search-and-call pair (SPEC §10.3): listed only with deferred
 * tools, `call_tool` opened as the named tool, `find_tools` answered with
 * the deterministic search over the active deferred tools.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  CALL_TOOL,
  FIND_TOOLS,
  findToolsAnswer,
  headListsPair,
  pairCalls,
  TOOL_PAIR,
  withToolPair,
} from "../../src/conversation/tool_pair.ts";
import type { PromptAssembly } from "../../mod.ts";
import { tool } from "../fixtures.ts";

const assembly: PromptAssembly = {
  sections: [{ name: "rules", order: 10, text: "Be brief." }],
  tools: [tool("read_file", "Read a file.")],
  variables: {},
  deferredTools: [
    tool("crm_get_contact", "Get a contact by id."),
    tool("crm_log_call", "Log a phone call with a contact."),
    tool("ops_ack_incident", "Acknowledge an incident."),
  ],
};

describe("the search-and-call pair", () => {
  it("is listed after the listed tools only while there are deferred tools", () => {
    const listed = withToolPair(assembly);
    assert.deepEqual(listed.tools.map((one) => one.name), [
      "read_file",
      FIND_TOOLS,
      CALL_TOOL,
    ]);
    const none = { ...assembly, deferredTools: undefined };
    assert.equal(withToolPair(none), none);
    const gated = withToolPair({
      ...assembly,
      activeTools: ["read_file", "crm_log_call"],
    });
    // The active deferred names after the pair: a found tool is allowed.
    assert.deepEqual(gated.activeTools, [
      "read_file",
      FIND_TOOLS,
      CALL_TOOL,
      "crm_log_call",
    ]);
    assert.ok(headListsPair(JSON.stringify({ tools: TOOL_PAIR })));
    assert.equal(headListsPair(JSON.stringify({ tools: [] })), false);
    assert.equal(headListsPair(undefined), false);
  });

  it("opens a call_tool call as the named tool, same id; leaves find_tools", () => {
    const calls = pairCalls([
      { id: "1", name: FIND_TOOLS, input: { query: "phone" } },
      {
        id: "2",
        name: CALL_TOOL,
        input: { name: "crm_log_call", arguments: { id: "c-1" } },
      },
      { id: "3", name: "read_file", input: {} },
    ]);
    assert.deepEqual(calls, [
      { id: "1", name: FIND_TOOLS, input: { query: "phone" } },
      { id: "2", name: "crm_log_call", input: { id: "c-1" }, via: CALL_TOOL },
      { id: "3", name: "read_file", input: {} },
    ]);
  });

  it("answers find_tools with one JSON line per active hit, best first", () => {
    const lines = findToolsAnswer({ query: "contact" }, assembly).split("\n")
      .map((line) => JSON.parse(line));
    assert.deepEqual(lines.map((hit) => hit.name), [
      "crm_get_contact",
      "crm_log_call",
    ]);
    assert.deepEqual(Object.keys(lines[0]), [
      "name",
      "description",
      "parameters",
    ]);
    const gated = findToolsAnswer({ query: "contact" }, {
      ...assembly,
      activeTools: ["read_file", "crm_log_call"],
    });
    assert.deepEqual(
      gated.split("\n").map((line) => JSON.parse(line).name),
      ["crm_log_call"],
    );
    assert.equal(
      findToolsAnswer({ query: "contact", limit: 1 }, assembly).split("\n")
        .length,
      1,
    );
    assert.match(findToolsAnswer({ query: "zebra" }, assembly), /^No tool/);
  });
});
