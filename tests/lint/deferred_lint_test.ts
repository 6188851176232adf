/**
 * `lintCache` with deferred tools (SPEC §10.3): a deferred tool's name never
 * enters the system prompt, and its name follows the wire rule.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { lintCache, type PromptAssembly } from "../../mod.ts";
import { tool } from "../fixtures.ts";

function assembly(
  sections: PromptAssembly["sections"],
  deferred: string[],
): PromptAssembly {
  return {
    sections,
    tools: [tool("read_file")],
    variables: { list: "crm_log, crm_find" },
    deferredTools: deferred.map((name) => tool(name)),
  };
}

describe("lintCache: deferred tools", () => {
  it("DEFERRED_TOOL_IN_SYSTEM for a section naming deferred tools, rendered text included", () => {
    const findings = lintCache(assembly([
      { name: "rules", order: 10, text: "Use read_file first." },
      { name: "deferred", order: 20, text: "Also available: {{list}}." },
    ], ["crm_find", "crm_log"]));
    assert.deepEqual(findings.map(({ code, entry }) => [code, entry]), [
      ["DEFERRED_TOOL_IN_SYSTEM", "section:deferred"],
    ]);
    assert.match(findings[0].message, /"crm_log", "crm_find"/);
    assert.equal(findings[0].severity, "warning");
  });

  it("matches whole names only: a longer word holding one is no finding", () => {
    const findings = lintCache(assembly([
      {
        name: "rules",
        order: 10,
        text: "Search with my_search_v2 or re-search.",
      },
    ], ["search"]));
    assert.deepEqual(findings, []);
    const named = lintCache(assembly([
      { name: "rules", order: 10, text: "Call search (it is deferred)." },
    ], ["search"]));
    assert.deepEqual(named.map((finding) => finding.code), [
      "DEFERRED_TOOL_IN_SYSTEM",
    ]);
  });

  it("names five tools and counts the rest; ignore turns it off", () => {
    const names = ["t1", "t2", "t3", "t4", "t5", "t6", "t7"];
    const value = assembly([
      { name: "all", order: 10, text: names.join(" ") },
    ], names);
    const [finding] = lintCache(value);
    assert.match(finding.message, /"t5" and 2 more/);
    assert.deepEqual(
      lintCache(value, { ignore: ["DEFERRED_TOOL_IN_SYSTEM"] }),
      [],
    );
  });

  it("INVALID_TOOL_NAME for a deferred tool's name, after the listed tools", () => {
    const findings = lintCache(assembly([], ["crm.find"]));
    assert.deepEqual(findings.map(({ code, entry }) => [code, entry]), [
      ["INVALID_TOOL_NAME", "tool:crm.find"],
    ]);
  });

  it("without deferred tools a section's words are no finding", () => {
    const value = assembly([
      { name: "rules", order: 10, text: "crm_find" },
    ], []);
    delete value.deferredTools;
    assert.deepEqual(lintCache(value), []);
  });
});
