/**
 * `judgeRequest` and `cacheReport` over a realistic Anthropic session built
 * with a real registry and `toMessages`, answered with payloads shaped from
 * the SDK's types: a changed section, a changed tool list, a lapse and a
 * provider-side eviction each get their verdict and contributor; the
 * provider's reason stands beside ours and never overrides the bytes.
 */

import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import type Anthropic from "@anthropic-ai/sdk";
import {
  cacheReport,
  type CacheRequestResult,
  judgeRequest,
  readReportedUsage,
  type ReportedRequest,
  simulateCache,
} from "../../../adapters/cache/mod.ts";
import { anthropicMessage, anthropicUsage } from "./reported_fixtures.ts";
import { agent, type Step } from "./agent_fixture.ts";

const countTokens = (text: string): number => Math.ceil(text.length / 4);
const MINUTE = 60_000;
const options = { provider: "anthropic" as const, countTokens };

/** What a provider that behaves like the estimate reports, or `override`. */
function answer(
  estimate: CacheRequestResult,
  id: string,
  override: {
    read?: number;
    reason?: Anthropic.Messages.CacheMissReason;
  } = {},
): ReturnType<typeof readReportedUsage> {
  const prefix = estimate.cachedTokens + estimate.writtenTokens;
  const read = override.read ?? estimate.cachedTokens;
  const written = prefix - read;
  return readReportedUsage(
    anthropicMessage(
      id,
      anthropicUsage(estimate.inputTokens - prefix, read, { "5m": written }),
      override.reason ?? null,
      true,
    ),
    "anthropic",
  );
}

/** The judgement of step `index` of `requests` against the step before. */
function judgeStep(
  requests: readonly ReportedRequest[],
  index: number,
): ReturnType<typeof judgeRequest> {
  return judgeRequest(
    { previous: requests[index - 1], current: requests[index] },
    options,
  );
}

describe("judgeRequest and cacheReport (Anthropic session)", () => {
  let dispose: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await dispose?.();
    dispose = undefined;
  });

  async function session(): Promise<ReportedRequest[]> {
    const { prompt, state, step } = agent();
    dispose = () => prompt.dispose();
    const steps: Step[] = [];
    steps.push(await step("Read the failing test.", 0));
    steps.push(await step("Fix it.", 20_000));
    state.branch = "fix/cache"; // the git plugin's variable changes a section
    steps.push(await step("Commit.", 40_000));
    state.mcp = ["search", "browse"]; // the MCP server adds a tool
    steps.push(await step("Look it up.", 60_000));
    steps.push(await step("After lunch: continue.", 60_000 + 10 * MINUTE));
    steps.push(await step("And the docs.", 60_000 + 10 * MINUTE + 30_000));
    const estimates = simulateCache(
      steps.map(({ body, time }) => ({ body, time })),
      options,
    ).requests;
    const evicted = estimates[5].cachedTokens + estimates[5].writtenTokens;
    const usages = [
      answer(estimates[0], "msg_0"),
      answer(estimates[1], "msg_1"),
      answer(estimates[2], "msg_2", {
        reason: { type: "system_changed", cache_missed_input_tokens: 2900 },
      }),
      answer(estimates[3], "msg_3", {
        reason: { type: "tools_changed", cache_missed_input_tokens: 4100 },
      }),
      answer(estimates[4], "msg_4", { reason: { type: "unavailable" } }),
      // Identical bytes, 30 s later, nothing read: evicted.
      answer(estimates[5], "msg_5", { read: 0 }),
    ];
    assert.ok(evicted > 2000, "the eviction loses a real prefix");
    return steps.map(({ body, time, explanation }, index) => ({
      body,
      time,
      explanation,
      usage: usages[index],
    }));
  }

  it("reads a normal step as no miss", async () => {
    const requests = await session();
    const judgement = judgeStep(requests, 1);
    assert.equal(judgement.missed, false);
    assert.equal(judgement.verdict, undefined);
    assert.equal(judgement.readLessThanItCould, false);
  });

  it("names the section and the variable behind a layout miss", async () => {
    const requests = await session();
    const judgement = judgeStep(requests, 2);
    assert.equal(judgement.missed, true);
    assert.equal(judgement.verdict, "layout");
    assert.deepEqual(judgement.change, { region: "system", block: "system:0" });
    assert.equal(judgement.readLessThanItCould, false); // the bytes changed
    assert.equal(judgement.provider.reason, "system_changed");
    assert.equal(judgement.providerAgrees, true);
    assert.deepEqual(judgement.contributor, {
      kind: "section",
      name: "git",
      change: "changed",
      registrar: "registry/git",
      layer: "global",
      brokenBy: "section:git",
      variable: { name: "branch", registrar: "registry/git", layer: "global" },
    });
  });

  it("names the tool source behind a changed tool list", async () => {
    const requests = await session();
    const judgement = judgeStep(requests, 3);
    assert.equal(judgement.verdict, "layout");
    assert.equal(judgement.change?.region, "tools");
    assert.equal(judgement.provider.reason, "tools_changed");
    assert.equal(judgement.contributor?.kind, "tool");
    assert.equal(judgement.contributor?.name, "browse");
    assert.equal(judgement.contributor?.change, "added");
    assert.equal(judgement.contributor?.registrar, "registry/mcp");
  });

  it("tells a lapse from an eviction", async () => {
    const requests = await session();
    const lapse = judgeStep(requests, 4);
    assert.equal(lapse.verdict, "provider");
    assert.equal(lapse.expired, true);
    assert.equal(lapse.lifetimeMs, 5 * MINUTE);
    assert.equal(lapse.change, undefined);
    assert.equal(lapse.readLessThanItCould, true);
    assert.equal(lapse.contributor, undefined);
    const eviction = judgeStep(requests, 5);
    assert.equal(eviction.verdict, "provider");
    assert.equal(eviction.expired, false);
    assert.equal(eviction.estimatePredictsMiss, false);
    assert.equal(eviction.readLessThanItCould, true);
  });

  it("reports the session: verdicts, totals and the estimate beside", async () => {
    const requests = await session();
    const report = cacheReport(requests, options);
    assert.deepEqual(
      report.requests.map((request) => request.judgement?.verdict),
      [undefined, undefined, "layout", "layout", "provider", "provider"],
    );
    assert.deepEqual(report.totals.verdicts, {
      layout: 2,
      conversation: 0,
      request: 0,
      provider: 2,
      unknown: 0,
      compaction: 0,
    });
    // Only the eviction differs from what the simulator expected.
    assert.deepEqual(
      report.requests.map((request) => request.differsFromEstimate),
      [false, false, false, false, false, true],
    );
    const read = requests.reduce((sum, r) => sum + r.usage.cacheReadTokens!, 0);
    const input = requests.reduce((sum, r) => sum + r.usage.inputTokens!, 0);
    assert.equal(report.totals.cacheReadTokens, read);
    assert.equal(report.totals.hitRatio, read / input);
    assert.ok(report.totals.estimate !== undefined);
    // The lapse and the eviction wrote the same prefix again.
    assert.ok(report.totals.rewriteFactor! > 1.2);
    assert.equal(report.totals.unreadableRequests, 0);
    assert.equal(typeof report.totals.cost, "number");
  });
});

describe("judgeRequest (the other verdicts)", () => {
  const rules = [{
    type: "text" as const,
    text: "Rules. ".repeat(1500),
    cache_control: { type: "ephemeral" as const },
  }];
  const body = (
    messages: Anthropic.Messages.MessageParam[],
    extra: Record<string, unknown> = {},
  ) => ({ model: "claude-sonnet-4-5", system: rules, messages, ...extra });
  const usage = (uncached: number, read: number, written: number) =>
    readReportedUsage(
      anthropicMessage(
        "msg",
        anthropicUsage(uncached, read, { "5m": written }),
      ),
      "anthropic",
    );
  const history: Anthropic.Messages.MessageParam[] = [
    { role: "user", content: "x".repeat(8000) },
    {
      role: "assistant",
      content: [{
        type: "text",
        text: "y".repeat(8000),
        cache_control: { type: "ephemeral" },
      }],
    },
  ];

  it("gives conversation when an earlier message changed", () => {
    const edited = structuredClone(history);
    edited[0].content = "z".repeat(8000);
    const judgement = judgeRequest({
      previous: { body: body(history), usage: usage(5, 0, 6630), time: 0 },
      current: { body: body(edited), usage: usage(5, 2630, 4000), time: 1000 },
    }, options);
    assert.equal(judgement.verdict, "conversation");
    assert.deepEqual(judgement.change, {
      region: "messages",
      block: "message:0.0",
    });
  });

  it("gives compaction for the rewrite after a conversation's compaction", () => {
    const edited = structuredClone(history);
    edited[0].content = "z".repeat(8000);
    const pair = {
      previous: { body: body(history), usage: usage(5, 0, 6630), time: 0 },
      current: { body: body(edited), usage: usage(5, 2630, 4000), time: 1000 },
    };
    assert.equal(judgeRequest(pair, options).verdict, "conversation");
    const judgement = judgeRequest({
      ...pair,
      current: { ...pair.current, compacted: true },
    }, options);
    assert.equal(judgement.verdict, "compaction");
    assert.equal(judgement.change?.region, "messages");
  });

  it("gives compaction for a miss on identical bytes the provider compacted inside", () => {
    const grown: Anthropic.Messages.MessageParam[] = [
      ...history,
      { role: "user", content: "Go on." },
    ];
    const pair = {
      previous: { body: body(history), usage: usage(5, 0, 6630), time: 0 },
      // The answer was made on the compacted history: less read.
      current: { body: body(grown), usage: usage(300, 2630, 200), time: 1000 },
    };
    assert.equal(judgeRequest(pair, options).verdict, "provider");
    const judgement = judgeRequest({
      ...pair,
      current: { ...pair.current, compacted: true },
    }, options);
    assert.equal(judgement.verdict, "compaction");
    assert.match(judgement.reason!, /compacted the conversation inside/);
  });

  it("gives request when the model or tool_choice changed", () => {
    const previous = { body: body(history), usage: usage(5, 0, 6630), time: 0 };
    const model = judgeRequest({
      previous,
      current: {
        body: body(history, { model: "claude-opus-4-5" }),
        usage: usage(5, 0, 6630),
        time: 1000,
      },
    }, options);
    assert.equal(model.verdict, "request");
    assert.deepEqual(model.change, { region: "model", option: "model" });
    const choice = judgeRequest({
      previous,
      current: {
        body: body(history, { tool_choice: { type: "any" } }),
        usage: usage(5, 2630, 4000),
        time: 1000,
      },
    }, options);
    assert.equal(choice.verdict, "request");
    assert.equal(choice.change?.option, "tool_choice");
  });

  it("trusts the bytes over the provider's reason", () => {
    const judgement = judgeRequest({
      previous: { body: body(history), usage: usage(5, 0, 6630), time: 0 },
      current: {
        body: body(history),
        usage: readReportedUsage(
          anthropicMessage(
            "msg",
            anthropicUsage(5, 0, { "5m": 6630 }),
            { type: "tools_changed", cache_missed_input_tokens: 6630 },
          ),
          "anthropic",
        ),
        time: 1000,
      },
    }, options);
    assert.equal(judgement.verdict, "provider");
    assert.equal(judgement.providerAgrees, false);
  });

  it("gives layout when the marks cannot reach the prefix", () => {
    const unmarkedRules = [{ type: "text" as const, text: rules[0].text }];
    const question = { type: "text" as const, text: "x".repeat(8000) };
    const before = {
      model: "claude-sonnet-4-5",
      system: unmarkedRules,
      messages: [{
        role: "user" as const,
        content: [{
          ...question,
          cache_control: { type: "ephemeral" as const },
        }],
      }],
    };
    // 25 new blocks, the only mark on the last: the 20-block lookback
    // cannot reach the end of the written prefix.
    const after = {
      ...before,
      messages: [
        { role: "user" as const, content: [question] },
        {
          role: "assistant" as const,
          content: Array.from({ length: 25 }, (_, i) => ({
            type: "text" as const,
            text: `step ${i}`,
          })),
        },
        {
          role: "user" as const,
          content: [{
            type: "text" as const,
            text: "more",
            cache_control: { type: "ephemeral" as const },
          }],
        },
      ],
    };
    const judgement = judgeRequest({
      previous: { body: before, usage: usage(3, 0, 4625), time: 0 },
      current: { body: after, usage: usage(80, 0, 4700), time: 1000 },
    }, options);
    assert.equal(judgement.verdict, "layout");
    assert.equal(judgement.estimatePredictsMiss, true);
    assert.equal(judgement.change, undefined);
  });

  it("tolerates one 128-token step, not more", () => {
    const previous = { body: body(history), usage: usage(5, 0, 6630), time: 0 };
    const judge = (read: number) =>
      judgeRequest({
        previous,
        current: {
          body: body(history),
          usage: usage(5, read, 6630 - read),
          time: 1000,
        },
      }, options);
    assert.equal(judge(6630 - 128).missed, false);
    assert.equal(judge(6630 - 129).missed, true);
    assert.equal(judge(6630 - 129).readLessThanItCould, true);
  });

  it("reads the lifetime from the previous request's last mark", () => {
    const hour = structuredClone(history);
    const last = hour[1].content as Anthropic.Messages.TextBlockParam[];
    last[0].cache_control = { type: "ephemeral", ttl: "1h" };
    const hourRules = [{
      ...rules[0],
      cache_control: { type: "ephemeral" as const, ttl: "1h" as const },
    }];
    const judgement = judgeRequest({
      previous: {
        body: { ...body(hour), system: hourRules },
        usage: usage(5, 0, 6630),
        time: 0,
      },
      current: {
        body: { ...body(hour), system: hourRules },
        usage: usage(5, 0, 6630),
        time: 10 * MINUTE,
      },
    }, options);
    assert.equal(judgement.lifetimeMs, 60 * MINUTE);
    assert.equal(judgement.verdict, "provider");
    assert.equal(judgement.expired, false); // evicted within the hour
  });

  describe("names the first block of this request that differs", () => {
    const tool = (name: string) => ({
      name,
      description: `The ${name} tool. `.repeat(200),
      input_schema: { type: "object" as const, properties: {} },
    });
    const withTools = (names: readonly string[]) =>
      body(history, { tools: names.map(tool) });
    const judgeTools = (before: readonly string[], after: readonly string[]) =>
      judgeRequest({
        previous: {
          body: withTools(before),
          usage: usage(5, 0, 8000),
          time: 0,
        },
        current: {
          body: withTools(after),
          usage: readReportedUsage(
            anthropicMessage(
              "msg",
              anthropicUsage(5, 0, { "5m": 9000 }),
              { type: "tools_changed", cache_missed_input_tokens: 9000 },
            ),
            "anthropic",
          ),
          time: 1000,
        },
      }, options);

    it("a tool added at the end of the list", () => {
      const judgement = judgeTools(
        ["read_file", "write_file"],
        ["read_file", "write_file", "run_shell"],
      );
      assert.equal(judgement.verdict, "layout");
      assert.deepEqual(judgement.change, {
        region: "tools",
        block: "tool:run_shell",
      });
      assert.equal(judgement.providerAgrees, true);
      assert.match(judgement.reason, /tool:run_shell \(tools, added\)/);
      // Where the bodies part: after the two tools kept, not what is lost.
      assert.ok(judgement.repeatedTokens! > 0);
      assert.ok(
        judgement.reason!.endsWith(
          `, ${judgement.repeatedTokens} tokens into the previous prefix of ` +
            `${judgement.previousPrefixTokens}`,
        ),
        judgement.reason,
      );
    });

    it("a tool that sorts first", () => {
      const judgement = judgeTools(
        ["read_file", "write_file"],
        ["apply_patch", "read_file", "write_file"],
      );
      assert.deepEqual(judgement.change, {
        region: "tools",
        block: "tool:apply_patch",
      });
      assert.equal(judgement.providerAgrees, true);
      assert.match(judgement.reason!, /, 0 tokens into the previous prefix of/);
    });

    it("a tool removed: the earlier body's block, which this one lacks", () => {
      const judgement = judgeTools(
        ["read_file", "run_shell", "write_file"],
        ["read_file", "write_file"],
      );
      assert.deepEqual(judgement.change, {
        region: "tools",
        block: "tool:run_shell",
      });
      assert.match(judgement.reason, /tool:run_shell \(tools, removed\)/);
      assert.equal(judgement.providerAgrees, true);
    });

    it("the last tool removed, the system unchanged", () => {
      const judgement = judgeTools(["read_file", "run_shell"], ["read_file"]);
      assert.deepEqual(judgement.change, {
        region: "tools",
        block: "tool:run_shell",
      });
      assert.equal(judgement.providerAgrees, true);
    });

    it("a tool whose definition changed", () => {
      const tools = ["read_file", "write_file"].map(tool);
      tools[0].description = "Reads.";
      const changed = body(history, { tools });
      const judgement = judgeRequest({
        previous: {
          body: withTools(["read_file", "write_file"]),
          usage: usage(5, 0, 8000),
          time: 0,
        },
        current: { body: changed, usage: usage(5, 0, 7000), time: 1000 },
      }, options);
      assert.deepEqual(judgement.change, {
        region: "tools",
        block: "tool:read_file",
      });
      assert.match(judgement.reason, /tool:read_file \(tools, changed\)/);
    });
  });

  it("gives unknown, never a throw, for unreadable figures or bodies", () => {
    const broken = readReportedUsage(
      { usage: { input_tokens: 5, cache_read_input_tokens: "?" } },
      "anthropic",
    );
    const figures = judgeRequest({
      previous: { body: body(history), usage: broken },
      current: { body: body(history), usage: usage(5, 0, 6630) },
    }, options);
    assert.equal(figures.verdict, "unknown");
    const bodies = judgeRequest({
      previous: { body: 42, usage: usage(5, 0, 6630) },
      current: { body: body(history), usage: usage(5, 0, 6630) },
    }, options);
    assert.equal(bodies.verdict, "unknown");
    assert.match(bodies.reason, /body/);
  });
});

/** A Gemini `generateContent` body with this config, one user turn. */
function geminiBody(config: Record<string, unknown>) {
  return {
    model: "gemini-2.5-flash",
    contents: [{ role: "user", parts: [{ text: "Fix the test." }] }],
    config,
  };
}

/** What Gemini reports: the prompt's tokens, the cached ones among them. */
function geminiUsage(prompt: number, cached: number) {
  return readReportedUsage({
    responseId: "r",
    candidates: [{ content: { role: "model", parts: [{ text: "ok" }] } }],
    usageMetadata: {
      promptTokenCount: prompt,
      cachedContentTokenCount: cached,
      candidatesTokenCount: 1,
    },
  }, "gemini");
}

const system = (text: string) => ({
  systemInstruction: { parts: [{ text: text.repeat(500) }] },
});

describe("judgeRequest (Gemini's implicit cache under the rules' minimum)", () => {
  const judge = (previousRead: number) =>
    judgeRequest({
      previous: {
        body: geminiBody(system("You are a coding agent. ")),
        usage: geminiUsage(3500, previousRead),
        time: 0,
      },
      current: {
        body: geminiBody(system("You are a careful agent. ")),
        usage: geminiUsage(3600, 0),
        time: 1000,
      },
    }, { provider: "gemini", countTokens });

  it("judges the miss when the previous request read below the minimum", () => {
    // 3,500 tokens are under Gemini 3's 4,096, yet the provider read 3,443
    // of them: its minimum is lower, and the prefix this request lost is
    // the previous request's input.
    const judgement = judge(3443);
    assert.equal(judgement.previousPrefixTokens, 3500);
    assert.equal(judgement.missed, true);
    assert.equal(judgement.verdict, "layout");
    assert.deepEqual(judgement.change, { region: "system", block: "system:0" });
  });

  it("keeps the minimum when nothing says it is lower", () => {
    const judgement = judge(0);
    assert.equal(judgement.previousPrefixTokens, 0);
    assert.equal(judgement.missed, false);
    assert.equal(judgement.verdict, undefined);
  });
});

describe("judgeRequest (Gemini's explicit cache entry)", () => {
  it("judges a replaced entry as a changed prefix, not an eviction", () => {
    const judgement = judgeRequest({
      previous: {
        body: geminiBody({ cachedContent: "cachedContents/1" }),
        usage: geminiUsage(4600, 4504),
        time: 0,
      },
      current: {
        body: geminiBody({ cachedContent: "cachedContents/2" }),
        usage: geminiUsage(4700, 2015),
        time: 1000,
      },
    }, { provider: "gemini", countTokens });
    assert.equal(judgement.verdict, "layout");
    assert.deepEqual(judgement.change, {
      region: "system",
      block: "cachedContent",
    });
  });
});
