/**
 * `cacheReport` on OpenAI bodies (Chat Completions with no diagnosis,
 * Responses with `prompt_cache_diagnostics`), its cost at SPEC 8.8's prices
 * (and none where a price has no default), threads, and its options.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  cacheReport,
  readReportedUsage,
  type ReportedRequest,
} from "../../../adapters/cache/mod.ts";
import { SystemPromptError } from "../../../mod.ts";
import {
  anthropicMessage,
  anthropicUsage,
  chatCompletion,
  responsesResponse,
} from "./reported_fixtures.ts";

const countTokens = (text: string): number => Math.ceil(text.length / 4);
const developer = (text: string) => ({ role: "developer", content: text });
const tools = [{
  type: "function",
  function: { name: "shell", description: "Run a command.", parameters: {} },
}];

describe("cacheReport (OpenAI)", () => {
  it("judges a Chat Completions session by its bytes alone", () => {
    const rules = "Answer in English. ".repeat(400); // ~1900 tokens
    const chat = (system: string, question: string) => ({
      model: "gpt-5.6",
      tools,
      messages: [developer(system), { role: "user", content: question }],
    });
    const requests: ReportedRequest[] = [
      {
        body: chat(rules, "One?"),
        usage: readReportedUsage(chatCompletion(1925, 0), "openai-chat"),
      },
      {
        body: chat(rules, "Two?"),
        usage: readReportedUsage(chatCompletion(1925, 1792), "openai-chat"),
      },
      {
        body: chat(rules.replace("English", "French"), "Three?"),
        usage: readReportedUsage(chatCompletion(1925, 0), "openai-chat"),
      },
    ];
    const report = cacheReport(requests, { provider: "openai", countTokens });
    assert.equal(report.requests[1].judgement?.missed, false);
    const miss = report.requests[2].judgement;
    assert.equal(miss?.verdict, "layout");
    assert.deepEqual(miss?.change, { region: "system", block: "system:0" });
    assert.equal(miss?.provider.status, "none"); // Chat has no diagnosis
    assert.equal(miss?.providerAgrees, undefined);
    // OpenAI's automatic cache bills no writes: the cost is input and reads.
    assert.equal(report.totals.cost, 1925 * 3 - 1792 + 1792 * 0.1);
  });

  it("sets the Responses diagnosis beside a layout verdict", () => {
    const rules = "Answer in English. ".repeat(400);
    const body = (instructions: string, question: string) => ({
      model: "gpt-5.6",
      tools,
      instructions,
      input: [{ role: "user", content: question }],
    });
    const report = cacheReport([
      {
        body: body(rules, "One?"),
        usage: readReportedUsage(
          responsesResponse(1925, 0),
          "openai-responses",
        ),
      },
      {
        body: body(rules.replace("English", "French"), "Two?"),
        usage: readReportedUsage(
          responsesResponse(1925, 0, {}, {
            type: "cache_miss",
            reason: "input_changed",
            cache_missed_tokens: 1900,
          }),
          "openai-responses",
        ),
      },
    ], { provider: "openai", countTokens });
    const judgement = report.requests[1].judgement;
    assert.equal(judgement?.verdict, "layout");
    assert.equal(judgement?.change?.region, "system");
    assert.equal(judgement?.provider.reason, "input_changed");
    assert.equal(judgement?.providerAgrees, true);
  });
});

describe("cacheReport (cost)", () => {
  const system = (ttl?: "1h") => [{
    type: "text",
    text: "Rules. ".repeat(800),
    cache_control: ttl === undefined
      ? { type: "ephemeral" }
      : { type: "ephemeral", ttl },
  }];
  const body = (blocks: unknown[]) => ({
    model: "claude-sonnet-4-5",
    system: blocks,
    messages: [{ role: "user", content: "Hi." }],
  });

  it("prices 1-hour writes at 2 and 5-minute writes at 1.25", () => {
    const usage = readReportedUsage(
      anthropicMessage(
        "msg",
        anthropicUsage(10, 0, { "5m": 100, "1h": 1000 }),
      ),
      "anthropic",
    );
    const report = cacheReport([{ body: body(system()), usage }], {
      provider: "anthropic",
      countTokens,
    });
    assert.equal(report.requests[0].cost, 10 + 100 * 1.25 + 1000 * 2);
  });

  it("prices unlabelled writes by the body's marks, or not at all", () => {
    const unlabelled = readReportedUsage(
      { usage: { input_tokens: 10, cache_creation_input_tokens: 1400 } },
      "anthropic",
    );
    const options = { provider: "anthropic" as const, countTokens };
    const oneHour = cacheReport(
      [{ body: body(system("1h")), usage: unlabelled }],
      options,
    );
    assert.equal(oneHour.requests[0].cost, 10 + 1400 * 2);
    // Marks of two lifetimes and no breakdown: no price has a default.
    const mixed = body([...system("1h"), ...system()]);
    const unknown = cacheReport([{ body: mixed, usage: unlabelled }], options);
    assert.equal(unknown.requests[0].cost, undefined);
    assert.equal(unknown.totals.cost, undefined);
    assert.equal(unknown.totals.cacheWriteTokens, 1400); // tokens alone
    const priced = cacheReport([{ body: mixed, usage: unlabelled }], {
      ...options,
      prices: { cacheWrite: { unknown: 1.5 } },
    });
    assert.equal(priced.requests[0].cost, 10 + 1400 * 1.5);
  });

  it("takes prices as options", () => {
    const usage = readReportedUsage(
      anthropicMessage("msg", anthropicUsage(1000, 2000, { "5m": 500 })),
      "anthropic",
    );
    const report = cacheReport([{ body: body(system()), usage }], {
      provider: "anthropic",
      countTokens,
      prices: { input: 3, cacheRead: 0.3, cacheWrite: { "5m": 3.75 } },
    });
    assert.equal(report.requests[0].cost, 1000 * 3 + 2000 * 0.3 + 500 * 3.75);
  });
});

describe("cacheReport (threads and options)", () => {
  const body = (text: string) => ({
    model: "claude-sonnet-4-5",
    system: [{
      type: "text",
      text,
      cache_control: { type: "ephemeral" },
    }],
    messages: [{ role: "user", content: "Go." }],
  });
  const usage = (read: number, written: number) =>
    readReportedUsage(
      anthropicMessage("msg", anthropicUsage(3, read, { "5m": written })),
      "anthropic",
    );

  it("judges a request against its own thread's previous one", () => {
    const main = "Main agent. ".repeat(500);
    const child = "Sub-agent. ".repeat(500);
    const report = cacheReport([
      { body: body(main), usage: usage(0, 1500), thread: "main", time: 0 },
      { body: body(child), usage: usage(0, 1375), thread: "child", time: 1 },
      { body: body(main), usage: usage(1500, 0), thread: "main", time: 2 },
    ], { provider: "anthropic", countTokens });
    // The child's first request is compared with the request before it.
    assert.equal(report.requests[1].judgement?.verdict, "layout");
    // The main thread's next request, with its own previous one: no miss.
    assert.equal(report.requests[2].judgement?.missed, false);
    assert.equal(report.totals.verdicts.layout, 1);
  });

  it("rejects options that are not valid with INVALID_CONFIG", () => {
    for (
      const [requests, options] of [
        [undefined, { provider: "anthropic", countTokens }],
        [[], { provider: "mistral", countTokens }],
        [[], { provider: "openai" }],
        [[{ body: {} }], { provider: "openai", countTokens }],
      ] as const
    ) {
      assert.throws(
        // deno-lint-ignore no-explicit-any
        () => cacheReport(requests as any, options as any),
        (error) =>
          error instanceof SystemPromptError &&
          error.code === "INVALID_CONFIG" && /cacheReport/.test(error.message),
      );
    }
  });

  it("leaves the estimate out when the simulator cannot read a body", () => {
    const report = cacheReport([
      { body: "not a body", usage: usage(0, 0) },
    ], { provider: "anthropic", countTokens });
    assert.equal(report.requests[0].estimate, undefined);
    assert.match(report.totals.estimateError ?? "", /request 0/);
  });
});
