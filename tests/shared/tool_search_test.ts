/**
 * The deterministic tool search (SPEC §10.3): BM25 over names and
 * descriptions, ties in the tools' order, the same bits on every engine.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  ln,
  searchTools,
  toolSearchIndex,
} from "../../src/shared/tool_search.ts";
import type { ToolSchema } from "../../mod.ts";
import { rejects } from "../assertions.ts";
import { tool } from "../fixtures.ts";

const TOOLS: ToolSchema[] = [
  tool("crm_find_contact", "Find a contact by name or email address."),
  tool("crm_log_call", "Log a phone call with a contact."),
  tool("calendar_create_event", "Create a calendar event with attendees."),
  tool("calendar_list_events", "List the events of a calendar in a range."),
  tool("github_create_issue", "Open an issue in a repository."),
  tool("github_list_issues", "List the open issues of a repository."),
  tool("searchRepositories", "Search code repositories by keywords."),
];

function names(query: string, limit?: number): string[] {
  return searchTools(toolSearchIndex(TOOLS), query, { limit }).map((hit) =>
    hit.tool.name
  );
}

describe("searchTools", () => {
  it("finds tools by the words of their names and descriptions, best first", () => {
    // The two runners-up tie: they keep the tools' order.
    assert.deepEqual(names("create an issue"), [
      "github_create_issue",
      "calendar_create_event",
      "github_list_issues",
    ]);
    assert.deepEqual(names("phone"), ["crm_log_call"]);
  });

  it("an exact tool name in the query ranks that tool first", () => {
    assert.equal(
      names("calendar_list_events please")[0],
      "calendar_list_events",
    );
    assert.equal(names("crm_log_call")[0], "crm_log_call");
  });

  it("cuts camelCase and makes plurals singular, in tools and queries alike", () => {
    assert.deepEqual(names("search repository"), [
      "searchRepositories",
      "github_create_issue",
      "github_list_issues",
    ]);
    assert.deepEqual(names("contacts"), ["crm_find_contact", "crm_log_call"]);
    assert.deepEqual(names("EVENTS"), [
      "calendar_create_event",
      "calendar_list_events",
    ]);
  });

  it("a name's word weighs more than a description's", () => {
    // "contact" is a word of crm_find_contact's name and of crm_log_call's
    // description only.
    const [first, second] = searchTools(toolSearchIndex(TOOLS), "contact");
    assert.equal(first.tool.name, "crm_find_contact");
    assert.equal(second.tool.name, "crm_log_call");
    assert.ok(first.score > second.score);
  });

  it("equal scores keep the tools' order, whatever it is", () => {
    const twins = [tool("tool_y", "Send mail."), tool("tool_x", "Send mail.")];
    const hits = searchTools(toolSearchIndex(twins), "mail");
    assert.deepEqual(hits.map((hit) => hit.tool.name), ["tool_y", "tool_x"]);
    assert.equal(hits[0].score, hits[1].score);
    const reversed = searchTools(toolSearchIndex(twins.toReversed()), "mail");
    assert.deepEqual(reversed.map((hit) => hit.tool.name), [
      "tool_x",
      "tool_y",
    ]);
  });

  it("no words, only stop words, or unknown words find nothing; limit caps the hits", () => {
    assert.deepEqual(names(""), []);
    assert.deepEqual(names("the of and"), []);
    assert.deepEqual(names("zebra"), []);
    assert.deepEqual(names("list create", 2).length, 2);
    assert.throws(
      () => searchTools(toolSearchIndex(TOOLS), "x", { limit: 0 }),
      rejects("INVALID_CONFIG", "limit"),
    );
  });

  it("scores are BM25 (k1 1.2, b 0.75, names weighted 2)", () => {
    const index = toolSearchIndex(TOOLS);
    const [hit] = searchTools(index, "phone");
    // "phone" is in one description of 7 tools; crm_log_call's length is
    // its 4 name terms × 2 + its 4 description words (log, phone, call,
    // contact; "a" and "with" are stop words).
    const length = index.lengths[1];
    assert.equal(length, 12);
    const idf = Math.log(1 + (7 - 1 + 0.5) / (1 + 0.5));
    const norm = 1.2 * (1 - 0.75 + 0.75 * length / index.meanLength);
    const expected = idf * 1 * 2.2 / (1 + norm);
    assert.ok(
      Math.abs(hit.score - expected) < 1e-12,
      `${hit.score} ${expected}`,
    );
  });

  it("gives the same score bits on every engine (check:npm runs this on Node and Bun)", () => {
    // Taken on Deno; the scores use + - * / and ln() only, so any engine
    // that rounds as IEEE 754 says gives these very doubles.
    const hits = searchTools(toolSearchIndex(TOOLS), "create an issue");
    assert.deepEqual(hits.map((hit) => hit.score), [
      3.4792456263826126,
      1.8183050787603543,
      1.8183050787603543,
    ]);
  });

  it("ln is the natural logarithm to 1e-15, from basic operations only", () => {
    for (const x of [1, 1.5, 2, Math.E, 3, 10, 1234.5, 1e9, 0.25, 1e-6]) {
      const relative = Math.abs(ln(x) - Math.log(x)) /
        Math.max(1, Math.abs(Math.log(x)));
      assert.ok(relative < 1e-15, `ln(${x})`);
    }
    assert.equal(ln(1), 0);
    assert.equal(ln(2), 0.6931471805599453);
  });
});
