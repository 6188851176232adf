/**
 * The rules of `simulateCache`, one hand-made case each: every case fails
 * if its rule is wrong. Tokens are characters here (`count`), so that the
 * expected figures can be read off the bodies.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { simulateCache } from "../../../adapters/cache/mod.ts";
import type { CacheRequest } from "../../../adapters/cache/mod.ts";
import { SystemPromptError } from "../../../mod.ts";

const count = (text: string): number => text.length;
const MIN = 60_000;
const marker = { type: "ephemeral" } as const;

function text(length: number, fill = "a"): string {
  return fill.repeat(length);
}

function anthropic(
  requests: CacheRequest[],
  minPrefixTokens?: number,
) {
  return simulateCache(requests, {
    provider: "anthropic",
    countTokens: count,
    minPrefixTokens,
  });
}

const tool = (name: string, description = "d") => ({
  name,
  description,
  input_schema: { type: "object" },
});
const toolTokens = (name: string, description = "d") =>
  JSON.stringify(tool(name, description)).length;

describe("simulateCache, Anthropic rules", () => {
  it("serves an identical request over the minimum up to its marker", () => {
    const body = {
      tools: [tool("read")],
      system: [{ type: "text", text: text(1100), cache_control: marker }],
      messages: [{ role: "user", content: "hello" }],
    };
    const { requests, totals } = anthropic([{ body }, { body }]);
    const through = toolTokens("read") + 1100;
    assert.equal(requests[0].cachedTokens, 0);
    assert.equal(requests[0].writtenTokens, through);
    assert.equal(requests[1].cachedTokens, through);
    assert.equal(requests[1].writtenTokens, 0);
    assert.equal(requests[1].inputTokens, through + 5);
    assert.deepEqual(requests[1].firstMiss?.block, "message:0.0");
    assert.equal(totals.cachedTokens, through);
    // Costs: writes at 1.25, reads at 0.1, the rest at 1.
    assert.equal(requests[0].cost, through * 1.25 + 5);
    assert.equal(requests[1].cost, through * 0.1 + 5);
  });

  it("caches nothing after a change in the first tool", () => {
    const body = (description: string) => ({
      tools: [tool("a", description), tool("b")],
      system: [{ type: "text", text: text(1100), cache_control: marker }],
      messages: [{ role: "user", content: "hi" }],
    });
    const { requests } = anthropic([{ body: body("x") }, { body: body("y") }]);
    assert.equal(requests[1].cachedTokens, 0);
    assert.equal(requests[1].firstMiss?.block, "tool:a");
    assert.match(requests[1].firstMiss!.reason, /differs from every earlier/);
  });

  it("caches nothing without a marker", () => {
    const body = {
      system: text(2000),
      messages: [{ role: "user", content: "hi" }],
    };
    const { requests } = anthropic([{ body }, { body }]);
    assert.equal(requests[1].cachedTokens, 0);
    assert.equal(requests[1].writtenTokens, 0);
    assert.match(requests[1].firstMiss!.reason, /no cache_control marker/);
  });

  it("rejects five markers as the API does, naming the request", () => {
    const body = {
      system: [1, 2, 3, 4, 5].map((n) => ({
        type: "text",
        text: `${n}`,
        cache_control: marker,
      })),
      messages: [],
    };
    assert.throws(
      () => anthropic([{ body: { system: "x", messages: [] } }, { body }]),
      (error) =>
        error instanceof SystemPromptError && error.code === "INVALID_CONFIG" &&
        /^request 1: A maximum of 4 blocks with cache_control/.test(
          error.message,
        ) && /Found 5/.test(error.message),
    );
  });

  it("rejects a 1-hour marker after a 5-minute one", () => {
    const body = {
      system: [
        { type: "text", text: "a", cache_control: marker },
        {
          type: "text",
          text: "b",
          cache_control: { type: "ephemeral", ttl: "1h" },
        },
      ],
      messages: [],
    };
    assert.throws(
      () => anthropic([{ body }]),
      (error) =>
        error instanceof SystemPromptError && error.code === "INVALID_CONFIG" &&
        /request 0: .*ttl "1h" \(system:1\).*ttl "5m" \(system:0\)/.test(
          error.message,
        ),
    );
    const fine = {
      ...body,
      system: [body.system[1], body.system[0]],
    };
    assert.equal(anthropic([{ body: fine }]).requests.length, 1);
  });

  it("looks a marker's prefix up at most 20 blocks back", () => {
    const history = Array.from({ length: 5 }, (_, n) => ({
      role: n % 2 === 0 ? "user" : "assistant",
      content: `turn ${n}`,
    }));
    const marked = (messages: { role: string; content: string }[]) =>
      messages.map((message, n) => ({
        role: message.role,
        content: [
          n === messages.length - 1
            ? { type: "text", text: message.content, cache_control: marker }
            : { type: "text", text: message.content },
        ],
      }));
    const first = { system: text(1100), messages: marked(history) };
    const grown = (added: number) => ({
      system: text(1100),
      messages: marked([
        ...history,
        ...Array.from({ length: added }, (_, n) => ({
          role: n % 2 === 0 ? "assistant" : "user",
          content: `new ${n}`,
        })),
      ]),
    });
    const through = 1100 +
      history.reduce((sum, m) => sum + m.content.length, 0);
    // The old marker's block is 20 blocks before the new marker: found.
    const near = anthropic([{ body: first }, { body: grown(20) }]).requests[1];
    assert.equal(near.cachedTokens, through);
    // 21 blocks before: not found.
    const far = anthropic([{ body: first }, { body: grown(21) }]).requests[1];
    assert.equal(far.cachedTokens, 0);
    assert.equal(far.firstMiss?.block, "system:0");
    assert.match(far.firstMiss!.reason, /within 20 blocks/);
  });

  it("writes nothing under the minimum prefix", () => {
    const body = {
      system: [{ type: "text", text: text(1000), cache_control: marker }],
      messages: [{ role: "user", content: "hi" }],
    };
    const short = anthropic([{ body }, { body }]).requests[1];
    assert.equal(short.cachedTokens, 0);
    assert.match(short.firstMiss!.reason, /under the minimum \(1000 < 1024/);
    const lowered = anthropic([{ body }, { body }], 1000).requests[1];
    assert.equal(lowered.cachedTokens, 1000);
  });

  it("lets entries lapse after 5 minutes and renews them on use", () => {
    const body = {
      system: [{ type: "text", text: text(1100), cache_control: marker }],
      messages: [{ role: "user", content: "hi" }],
    };
    const at = (...times: number[]) =>
      anthropic(times.map((time) => ({ body, time }))).requests.map((r) =>
        r.cachedTokens
      );
    assert.deepEqual(at(0, 5 * MIN - 1), [0, 1100]);
    assert.deepEqual(at(0, 5 * MIN), [0, 0]);
    // Read at 4 min, the entry lives to 9 min.
    assert.deepEqual(at(0, 4 * MIN, 8 * MIN), [0, 1100, 1100]);
    const lapsed = anthropic([{ body, time: 0 }, { body, time: 6 * MIN }])
      .requests[1];
    assert.equal(lapsed.firstMiss?.block, "system:0");
    assert.match(
      lapsed.firstMiss!.reason,
      /lapsed: lifetime 5 min, last used 360 s before/,
    );
    assert.equal(lapsed.writtenTokens, 1100);
    const long = {
      ...body,
      system: [{
        ...body.system[0],
        cache_control: { type: "ephemeral", ttl: "1h" },
      }],
    };
    const hour = anthropic([{ body: long, time: 0 }, {
      body: long,
      time: 59 * MIN,
    }]);
    assert.equal(hour.requests[1].cachedTokens, 1100);
    assert.equal(hour.requests[0].cost, 1100 * 2 + 2);
  });

  it("reads the longest prefix among its markers and writes only past it", () => {
    const system = [
      { type: "text", text: text(1100), cache_control: marker },
      { type: "text", text: text(500, "b"), cache_control: marker },
    ];
    const first = { system, messages: [{ role: "user", content: "q1" }] };
    const second = {
      system,
      messages: [{
        role: "user",
        content: [{ type: "text", text: "q2", cache_control: marker }],
      }],
    };
    const { requests } = anthropic([{ body: first }, { body: second }]);
    assert.equal(requests[0].writtenTokens, 1600);
    assert.equal(requests[1].cachedTokens, 1600);
    assert.equal(requests[1].writtenTokens, 2);
  });
});

function openai(
  requests: CacheRequest[],
  provider: "openai" | "openai-explicit" = "openai",
) {
  return simulateCache(requests, { provider, countTokens: count });
}

const chat = (system: string, user = "u") => ({
  messages: [
    { role: "system", content: system },
    { role: "user", content: user },
  ],
});

describe("simulateCache, OpenAI automatic rules", () => {
  it("serves nothing under 1024 tokens and steps of 128 above", () => {
    const served = (length: number) =>
      openai([{ body: chat(text(length)) }, { body: chat(text(length)) }])
        .requests[1].cachedTokens;
    assert.equal(served(1022), 0); // 1023 tokens with the message
    assert.equal(served(1023), 1024);
    assert.equal(served(1150), 1024);
    assert.equal(served(1151), 1152);
    assert.equal(served(1300), 1280);
    const under =
      openai([{ body: chat(text(1000)) }, { body: chat(text(1000)) }])
        .requests[1];
    assert.match(under.firstMiss!.reason, /under the minimum of 1024/);
    assert.equal(under.writtenTokens, 0);
  });

  it("matches the common prefix with any earlier request, into a changed block", () => {
    const { requests } = openai([
      { body: chat(text(1300) + "monday") },
      { body: chat(text(1300, "b")) },
      { body: chat(text(1300) + "tuesday") },
    ]);
    assert.equal(requests[1].cachedTokens, 0);
    // 1300 common characters of the system message's text.
    assert.equal(requests[2].cachedTokens, 1280);
    assert.equal(requests[2].firstMiss?.block, "system:0");
    assert.match(requests[2].firstMiss!.reason, /differs from every earlier/);
  });

  it("keeps entries 5 minutes after their last use", () => {
    const body = chat(text(1300));
    const served = (...times: number[]) =>
      openai(times.map((time) => ({ body, time }))).requests.map((r) =>
        r.cachedTokens
      );
    assert.deepEqual(served(0, 5 * MIN - 1), [0, 1280]);
    assert.deepEqual(served(0, 5 * MIN), [0, 0]);
    assert.deepEqual(served(0, 4 * MIN, 8 * MIN), [0, 1280, 1280]);
  });

  it("keeps them 24 hours for a request with prompt_cache_retention: 24h", () => {
    const body = chat(text(1300));
    const kept = { ...body, prompt_cache_retention: "24h" };
    const served = (first: unknown, ...times: number[]) =>
      openai([
        { body: first, time: 0 },
        ...times.map((time) => ({ body, time })),
      ]).requests.map((r) => r.cachedTokens);
    assert.deepEqual(served(kept, 20 * MIN, 21 * 60 * MIN), [0, 1280, 1280]);
    assert.deepEqual(served(kept, 24 * 60 * MIN), [0, 0]);
    assert.deepEqual(served(body, 20 * MIN), [0, 0]);
    // In-memory retention asked for: the 5-minute default.
    assert.deepEqual(
      served({ ...body, prompt_cache_retention: "in_memory" }, 20 * MIN),
      [0, 0],
    );
  });

  it("reads tools first: a changed tool list loses the system prompt", () => {
    const body = (name: string) => ({
      tools: [{ type: "function", function: { name, parameters: {} } }],
      ...chat(text(1300)),
    });
    const { requests } = openai([{ body: body("a") }, { body: body("b") }]);
    assert.equal(requests[1].cachedTokens, 0);
    assert.equal(requests[1].firstMiss?.block, "tool:b");
  });
});

/** A chat body whose system message is marked parts of these lengths. */
function marked(
  lengths: number[],
  options: { mode?: "explicit"; ttl?: "12h"; fill?: string[] } = {},
) {
  const parts = lengths.map((length, n) => ({
    type: "text",
    text: text(length, options.fill?.[n] ?? String.fromCharCode(97 + n)),
    prompt_cache_breakpoint: options.ttl === undefined
      ? { mode: "explicit" }
      : { mode: "explicit", ttl: options.ttl },
  }));
  return {
    messages: [
      { role: "system", content: parts },
      { role: "user", content: "u" },
    ],
    ...(options.mode === undefined
      ? {}
      : { prompt_cache_options: { mode: options.mode } }),
  };
}

describe("simulateCache, OpenAI explicit rules", () => {
  // Five marks past the minimum; a later request (after the automatic
  // entries lapsed) shares the first `shared` parts.
  const lengths = [1100, 10, 10, 10, 10];
  const later = (shared: number, mode?: "explicit") => {
    const fill = ["a", "b", "c", "d", "e"].map((letter, n) =>
      n < shared ? letter : "z"
    );
    const { requests } = openai([
      { body: marked(lengths, { mode }), time: 0 },
      { body: marked(lengths, { mode, fill }), time: 10 * MIN },
    ], "openai-explicit");
    return requests;
  };

  it("writes the latest three marks by default", () => {
    assert.equal(later(3)[1].cachedTokens, 1120);
    assert.equal(later(2)[1].cachedTokens, 0);
    assert.equal(later(3)[0].writtenTokens, 1130 + 10);
  });

  it("writes the latest four marks with mode explicit", () => {
    assert.equal(later(2, "explicit")[1].cachedTokens, 1110);
    assert.equal(later(1, "explicit")[1].cachedTokens, 0);
  });

  it("serves the larger of the explicit read and the automatic rule", () => {
    const first = marked([1100, 300]);
    const second = marked([1100, 300], { fill: ["a", "c"] });
    const { requests } = openai([
      { body: first, time: 0 },
      { body: second, time: 1000 },
    ], "openai-explicit");
    // No explicit entry through part 0 (its mark is not among … it is:
    // both marks are among the latest three), so 1100 explicitly; the
    // automatic rule matches 1100 too and rounds down to 1024.
    assert.equal(requests[1].cachedTokens, 1100);
    const automaticOnly = openai([
      { body: chat(text(1300)) },
      { body: chat(text(1300)) },
    ], "openai-explicit").requests[1];
    assert.equal(automaticOnly.cachedTokens, 1280);
    const explicitOnly = openai([
      {
        body: {
          ...chat(text(1300)),
          prompt_cache_options: { mode: "explicit" },
        },
      },
      {
        body: {
          ...chat(text(1300)),
          prompt_cache_options: { mode: "explicit" },
        },
      },
    ], "openai-explicit").requests[1];
    assert.equal(explicitOnly.cachedTokens, 0);
    assert.match(
      explicitOnly.firstMiss!.reason,
      /no part has a prompt_cache_breakpoint/,
    );
  });

  it("reads at any of the latest 80 marks", () => {
    const body = (after: number) => ({
      messages: [
        {
          role: "system",
          content: [{
            type: "text",
            text: text(1100),
            prompt_cache_breakpoint: { mode: "explicit" },
          }],
        },
        ...Array.from({ length: after }, (_, n) => ({
          role: "user",
          content: [{
            type: "text",
            text: `m${n}`,
            prompt_cache_breakpoint: { mode: "explicit" },
          }],
        })),
      ],
      prompt_cache_options: { mode: "explicit" },
    });
    const served = (after: number) =>
      openai([{ body: body(0) }, { body: body(after) }], "openai-explicit")
        .requests[1].cachedTokens;
    assert.equal(served(79), 1100);
    assert.equal(served(80), 0);
  });

  it("keeps marked entries 30 minutes, or 12 hours with ttl 12h", () => {
    const served = (ttl: "12h" | undefined, time: number) =>
      openai([
        { body: marked([1100], { mode: "explicit", ttl }), time: 0 },
        { body: marked([1100], { mode: "explicit", ttl }), time },
      ], "openai-explicit").requests[1].cachedTokens;
    assert.equal(served(undefined, 29 * MIN), 1100);
    assert.equal(served(undefined, 30 * MIN), 0);
    assert.equal(served("12h", 11 * 60 * MIN), 1100);
    // A request's prompt_cache_options.ttl is its marks' default.
    const long = {
      ...marked([1100], { mode: "explicit" }),
      prompt_cache_options: { mode: "explicit", ttl: "12h" },
    };
    assert.equal(
      openai(
        [{ body: long, time: 0 }, { body: long, time: 11 * 60 * MIN }],
        "openai-explicit",
      )
        .requests[1].cachedTokens,
      1100,
    );
  });

  it("needs 1024 tokens for a mark", () => {
    const body = marked([1000], { mode: "explicit" });
    const { requests } = openai([{ body }, { body }], "openai-explicit");
    assert.equal(requests[0].writtenTokens, 0);
    assert.equal(requests[1].cachedTokens, 0);
  });

  it("prices explicit writes at 1.25", () => {
    const body = marked([1100], { mode: "explicit" });
    const { requests } = openai([{ body }], "openai-explicit");
    assert.equal(requests[0].writtenTokens, 1100);
    assert.equal(requests[0].cost, 1100 * 1.25 + 1);
  });
});

describe("simulateCache, accepted bodies", () => {
  it("reads a Responses body: instructions, input items and parts", () => {
    const body = {
      tools: [{ type: "function", name: "shell", parameters: {} }],
      instructions: text(1300),
      input: [
        { role: "user", content: [{ type: "input_text", text: "hi" }] },
        { type: "function_call_output", call_id: "c", output: "ok" },
      ],
    };
    const { requests } = openai([{ body }, { body }]);
    const toolJson = JSON.stringify(body.tools[0]).length;
    const output = JSON.stringify(body.input[1]).length;
    assert.equal(requests[1].inputTokens, toolJson + 1300 + 2 + output);
    assert.equal(requests[1].promptTokens, toolJson + 1300);
    assert.equal(requests[1].cachedTokens, 1408);
  });

  it("reads a leading system item of a Responses input as the system prompt, with its marks", () => {
    const body = (question: string) => ({
      input: [
        {
          role: "system",
          content: [{
            type: "input_text",
            text: text(1100),
            prompt_cache_breakpoint: { mode: "explicit" },
          }],
        },
        { role: "user", content: question },
      ],
      prompt_cache_options: { mode: "explicit" },
    });
    const { requests } = openai(
      [{ body: body("a") }, { body: body("b") }],
      "openai-explicit",
    );
    assert.equal(requests[1].promptTokens, 1100);
    assert.equal(requests[1].cachedTokens, 1100);
    assert.equal(requests[1].firstMiss?.block, "message:1.0");
  });

  it("names blocks tool:NAME, system:I and message:I.J", () => {
    const body = (last: string) => ({
      tools: [tool("read")],
      system: [{ type: "text", text: "s0" }, { type: "text", text: "s1" }],
      messages: [
        { role: "user", content: "m0" },
        {
          role: "assistant",
          content: [{ type: "text", text: "a" }, { type: "text", text: last }],
        },
      ],
    });
    const { requests } = anthropic([{ body: body("x") }, { body: body("y") }]);
    assert.equal(requests[1].firstMiss?.block, "tool:read");
    const noMarker = requests[1].firstMiss!.reason;
    assert.match(noMarker, /no cache_control marker/);
  });
});

describe("simulateCache, bad input", () => {
  const typed = (pattern: RegExp) => (error: unknown) =>
    error instanceof SystemPromptError && error.code === "INVALID_CONFIG" &&
    pattern.test(error.message);
  const good = { system: "s", messages: [] };

  it("names the request whose body is not an accepted shape", () => {
    assert.throws(
      () => anthropic([{ body: good }, { body: { input: "x" } }]),
      typed(/^request 1: the body has input/),
    );
    assert.throws(
      () => openai([{ body: good }]),
      typed(/^request 0: the body has system \(an Anthropic body\)/),
    );
    assert.throws(
      () => anthropic([{ body: good }, { body: good }, { body: 7 }]),
      typed(/^request 2: the body is number 7/),
    );
  });

  it("names the request whose countTokens throws or is not an integer", () => {
    const cause = new Error("tokenizer down");
    assert.throws(
      () =>
        simulateCache(
          [{ body: good }, { body: { system: "t", messages: [] } }],
          {
            provider: "anthropic",
            countTokens: (text) => {
              if (text === "t") throw cause;
              return 1;
            },
          },
        ),
      (error) =>
        typed(/^request 1: countTokens threw/)(error) &&
        (error as Error).cause === cause,
    );
    for (const answer of [1.5, -1, NaN, "3"]) {
      assert.throws(
        () =>
          simulateCache([{ body: chat("s") }], {
            provider: "openai",
            countTokens: () => answer as number,
          }),
        typed(/^request 0: countTokens returned/),
      );
    }
  });

  it("says what is wrong in a body, and what would be valid", () => {
    const anthropicCases: [unknown, RegExp][] = [
      [
        { system: [{ type: "image" }], messages: [] },
        /system\[0\] is not a text block/,
      ],
      [
        { system: [{ type: "text", text: 3 }], messages: [] },
        /system\[0\]\.text is number 3/,
      ],
      [
        { system: 5, messages: [] },
        /system is number 5; expected a string or an array/,
      ],
      [
        { system: "s" },
        /messages is undefined; expected an Anthropic Messages body/,
      ],
      [
        { messages: [7] },
        /messages\[0\] is number 7; expected \{ role, content \}/,
      ],
      [
        { messages: [{ role: 1, content: "" }] },
        /messages\[0\]\.role is number 1/,
      ],
      [
        { messages: [{ role: "user", content: 2 }] },
        /messages\[0\]\.content is number 2/,
      ],
      [
        { messages: [{ role: "user", content: [3] }] },
        /messages\[0\]\.content\[0\] is not a content block/,
      ],
      [{ tools: {}, messages: [] }, /tools is an object; expected an array/],
      [{ tools: [null], messages: [] }, /tools\[0\] is null; expected a tool/],
      [
        { tools: [{ description: "x" }], messages: [] },
        /tools\[0\] has no name/,
      ],
      [
        {
          tools: [{ name: "a", cache_control: { type: "persistent" } }],
          messages: [],
        },
        /tools\[0\]\.cache_control is not \{ type: "ephemeral", ttl\? \}/,
      ],
      [
        {
          tools: [{
            name: "a",
            cache_control: { type: "ephemeral", ttl: "2h" },
          }],
          messages: [],
        },
        /tools\[0\]\.cache_control\.ttl is "2h"; expected "5m" or "1h"/,
      ],
    ];
    for (const [body, pattern] of anthropicCases) {
      assert.throws(
        () => anthropic([{ body: body as object }]),
        typed(pattern),
        String(pattern),
      );
    }
    const openAICases: [unknown, RegExp][] = [
      [
        { instructions: 4, input: "x" },
        /instructions is number 4; expected a string/,
      ],
      [{ input: [5] }, /input\[0\] is number 5; expected a message object/],
      [{ messages: [], input: [] }, /the body has both messages and input/],
      [
        { messages: [], prompt_cache_options: 1 },
        /prompt_cache_options is number 1/,
      ],
      [
        { messages: [], prompt_cache_options: { ttl: "1d" } },
        /prompt_cache_options\.ttl is "1d"; expected "30m" or "12h"/,
      ],
      [
        {
          messages: [{
            role: "user",
            content: [{
              type: "text",
              text: "x",
              prompt_cache_breakpoint: { mode: "auto" },
            }],
          }],
        },
        /messages\[0\]\.content\[0\]\.prompt_cache_breakpoint is not \{ mode: "explicit", ttl\? \}/,
      ],
      [
        {
          messages: [{
            role: "user",
            content: [{
              type: "text",
              text: "x",
              prompt_cache_breakpoint: { mode: "explicit", ttl: "1h" },
            }],
          }],
        },
        /prompt_cache_breakpoint\.ttl is "1h"; expected "30m" or "12h"/,
      ],
    ];
    for (const [body, pattern] of openAICases) {
      assert.throws(
        () => openai([{ body: body as object }]),
        typed(pattern),
        String(pattern),
      );
    }
  });

  it("names the request sent before its predecessor", () => {
    assert.throws(
      () => anthropic([{ body: good, time: 10 }, { body: good, time: 5 }]),
      typed(/^request 1: time 5 is before the previous request's \(10\)/),
    );
  });

  it("types what a getter or Proxy throws", () => {
    const hostile = new Proxy({}, {
      get() {
        throw new Error("trap");
      },
    });
    assert.throws(
      () => anthropic([{ body: good }, { body: hostile }]),
      typed(/^request 1 cannot be read/),
    );
    const cyclic: Record<string, unknown> = { type: "tool_use" };
    cyclic.self = cyclic;
    assert.throws(
      () =>
        anthropic([{
          body: {
            system: "s",
            messages: [{ role: "user", content: [cyclic] }],
          },
        }]),
      typed(/^request 0 cannot be read/),
    );
  });

  it("rejects options that are not valid", () => {
    assert.throws(
      () =>
        simulateCache([], {
          provider: "mistral" as "openai",
          countTokens: count,
        }),
      typed(/provider is "mistral"/),
    );
    assert.throws(
      () =>
        simulateCache([], {
          provider: "openai",
          countTokens: 3 as unknown as typeof count,
        }),
      typed(/countTokens is number 3/),
    );
    assert.throws(
      () =>
        simulateCache([], {
          provider: "openai",
          countTokens: count,
          minPrefixTokens: -1,
        }),
      typed(/minPrefixTokens is number -1/),
    );
    assert.throws(
      () =>
        simulateCache({} as CacheRequest[], {
          provider: "openai",
          countTokens: count,
        }),
      typed(/requests are an object/),
    );
  });

  it("counts each distinct text once", () => {
    const seen = new Map<string, number>();
    const body = {
      system: text(50),
      messages: [{ role: "user", content: "q" }],
    };
    simulateCache([{ body }, { body }, { body }], {
      provider: "anthropic",
      countTokens: (t) => {
        seen.set(t, (seen.get(t) ?? 0) + 1);
        return t.length;
      },
    });
    assert.deepEqual([...seen.values()], [1, 1]);
  });
});
