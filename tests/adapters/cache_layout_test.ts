/**
 * SPEC 8.3, 8.5, 8.6 in the SDK-free adapters: where `cache` puts its
 * markers (the selection rule, `breakpoints`, `maxCacheBreakpoints`), gating
 * (`allowed_tools`, `gating: "remove" | "keep"`), OpenAI's explicit
 * breakpoints and `promptCacheKey`.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { renderPrompt, renderPromptBlocks } from "../../mod.ts";
import { toMessages } from "../../adapters/anthropic/mod.ts";
import {
  promptCacheKey,
  toChatCompletions,
  toResponses,
} from "../../adapters/openai/mod.ts";
import {
  selectMarkers,
  toolCandidates,
} from "../../src/render/prefix_marks.ts";
import { rejects } from "../assertions.ts";
import { type TestAssembly, toolNamed } from "./fixtures.ts";

/**
 * Tools stable (a, b), agent (c), volatile (d); blocks stable, agent,
 * volatile.
 */
function layered(): TestAssembly {
  return {
    sections: [
      { name: "identity", order: -100, text: "Identity." },
      { name: "rules", order: -50, text: "Rules." },
      { name: "persona", order: 0, text: "Persona.", stability: "agent" },
      { name: "memory", order: 900, text: "Memory.", stability: "volatile" },
    ],
    tools: ["a", "b", "c", "d"].map((name) => toolNamed(name)),
    toolStability: { c: "agent", d: "volatile" },
    variables: {},
  };
}

function anthropicMarkers(request: ReturnType<typeof toMessages>): string[] {
  return [
    ...(request.tools ?? []).filter((tool) => tool.cache_control).map((
      tool,
    ) => `tool:${tool.name}`),
    ...request.system.flatMap((block, index) =>
      block.cache_control ? [`block:${index}`] : []
    ),
  ];
}

describe("the marker selection rule (SPEC 8.3)", () => {
  it("tool candidates: the last of each run followed by a more volatile tool or the system prompt, never volatile", () => {
    assert.deepEqual(toolCandidates([0, 0, 1, 2]), [false, true, true, false]);
    assert.deepEqual(toolCandidates([0, 0]), [false, true]);
    assert.deepEqual(toolCandidates([1, 0, 2]), [false, true, false]);
    assert.deepEqual(toolCandidates([2, 0]), [false, true]);
    assert.deepEqual(toolCandidates([]), []);
  });

  it("marks nothing after the first volatile item (SPEC 9.2)", () => {
    const item = (rank: number, candidate = true) => ({ rank, candidate });
    // Candidates 0, 1, 3, 5; the first volatile item is 2: 3 and 5 would
    // end prefixes holding its bytes.
    const items = [
      item(0),
      item(1),
      item(2, false),
      item(0),
      item(0, false),
      item(1),
    ];
    assert.deepEqual(selectMarkers(items, 4), [0, 1]);
    assert.deepEqual(selectMarkers(items, 2), [0, 1]);
    // Over the limit: the end of the shared stable prefix (0) first.
    assert.deepEqual(selectMarkers(items, 1), [0]);
    assert.deepEqual(selectMarkers(items, 0), []);
    // A volatile item first: nothing.
    assert.deepEqual(selectMarkers([item(2), item(0)], 4), []);
  });

  it("keeps the end of the prefix every scope shares, then the last, then the rest latest first", () => {
    const item = (rank: number, candidate = true) => ({ rank, candidate });
    // Stable tools (0, 1), an agent tool (2), a stable block (3), an agent
    // block (4): the shared prefix ends at 1.
    const items = [item(0, false), item(0), item(1), item(0), item(1)];
    assert.deepEqual(selectMarkers(items, 4), [1, 2, 3, 4]);
    assert.deepEqual(selectMarkers(items, 3), [1, 3, 4]);
    assert.deepEqual(selectMarkers(items, 2), [1, 4]);
    assert.deepEqual(selectMarkers(items, 1), [1]);
    // Nothing volatile, all stable: the shared prefix is the last item.
    assert.deepEqual(selectMarkers([item(0), item(0), item(0)], 2), [1, 2]);
    // No stable item first: the latest.
    assert.deepEqual(selectMarkers([item(1), item(0), item(0)], 2), [1, 2]);
    // The shared prefix ends on an item that cannot carry a marker (an
    // OpenAI tool): the latest.
    assert.deepEqual(
      selectMarkers([item(0, false), item(1), item(0), item(1)], 2),
      [2, 3],
    );
  });

  it("keeps a conversation's last tool after the shared end, the last and the latest other", () => {
    const item = (rank: number, candidate = true) => ({ rank, candidate });
    // Two stable tools (the last at 1), four stable blocks: the shared end
    // is the last.
    const items = [item(0, false), item(0), item(0), item(0), item(0), item(0)];
    assert.deepEqual(selectMarkers(items, 3), [3, 4, 5]);
    assert.deepEqual(selectMarkers(items, 3, { forkEnd: 1 }), [1, 4, 5]);
    assert.deepEqual(selectMarkers(items, 2, { forkEnd: 1 }), [4, 5]);
    assert.deepEqual(selectMarkers(items, 4, { forkEnd: 1 }), [1, 3, 4, 5]);
    // A shared end before the last: the tools' end comes fourth.
    const sub = [item(0, false), item(0), item(0), item(1), item(0), item(1)];
    assert.deepEqual(selectMarkers(sub, 3, { forkEnd: 1 }), [2, 4, 5]);
    assert.deepEqual(selectMarkers(sub, 4, { forkEnd: 1 }), [1, 2, 4, 5]);
    // Never an item that is no candidate, nor one after a volatile item.
    assert.deepEqual(selectMarkers(items, 3, { forkEnd: 0 }), [3, 4, 5]);
    assert.deepEqual(
      selectMarkers([item(0), item(2), item(0), item(0)], 3, { forkEnd: 2 }),
      [0],
    );
  });
});

describe("toMessages: automatic markers and gating", () => {
  it("marks the last stable and agent tools, and no block after the volatile tool (SPEC 9.2)", () => {
    const request = toMessages(layered(), {
      cache: true,
      maxCacheBreakpoints: 4,
    });
    assert.deepEqual(anthropicMarkers(request), ["tool:b", "tool:c"]);
    assert.deepEqual(request.system.map((block) => block.text), [
      "Identity.\n\nRules.\n\n",
      "Persona.\n\n",
      "Memory.",
    ]);
    // One: the end of the stable tools every scope shares.
    assert.deepEqual(
      anthropicMarkers(
        toMessages(layered(), { cache: true, maxCacheBreakpoints: 1 }),
      ),
      ["tool:b"],
    );
  });

  it("with nothing volatile before them, keeps the marker ending the shared stable tools", () => {
    const assembly: TestAssembly = {
      ...layered(),
      toolStability: { c: "agent" },
      tools: ["a", "b", "c"].map((name) => toolNamed(name)),
    };
    assert.deepEqual(
      anthropicMarkers(
        toMessages(assembly, { cache: true, maxCacheBreakpoints: 4 }),
      ),
      ["tool:b", "tool:c", "block:0", "block:1"],
    );
    // Three: the shared stable tools' end (tool b), the last (block 1),
    // then the latest other (block 0). 0.3 dropped tool b.
    assert.deepEqual(anthropicMarkers(toMessages(assembly, { cache: true })), [
      "tool:b",
      "block:0",
      "block:1",
    ]);
  });

  it("with three breakpoint sections and a volatile tail, never marks the tail", () => {
    const assembly: TestAssembly = {
      sections: [
        ...["a", "b", "c"].map((name) => ({
          name,
          order: 0,
          text: name,
          cacheBreakpoint: true as const,
        })),
        { name: "tail", order: 1, text: "tail", stability: "volatile" },
      ],
      tools: [toolNamed("shell")],
      variables: {},
    };
    const request = toMessages(assembly, { cache: true });
    assert.deepEqual(anthropicMarkers(request), [
      "block:0",
      "block:1",
      "block:2",
    ]);
    // 0.2 marked the tail and dropped the tool's marker.
    assert.deepEqual(
      anthropicMarkers(
        toMessages(assembly, { cache: true, breakpoints: "explicit" }),
      ),
      ["block:1", "block:2", "block:3"],
    );
  });

  it("breakpoints: explicit gives 0.2's blocks and markers", () => {
    const request = toMessages(layered(), {
      cache: true,
      breakpoints: "explicit",
    });
    assert.deepEqual(request.system, [{
      type: "text",
      text: renderPrompt(layered()),
      cache_control: { type: "ephemeral" },
    }]);
    assert.deepEqual(anthropicMarkers(request), ["tool:d", "block:0"]);
  });

  it("gating remove (default) leaves inactive tools out, and tools out when none is active", () => {
    const assembly = { ...layered(), activeTools: ["c", "a"] };
    const request = toMessages(assembly);
    assert.deepEqual(request.tools?.map((tool) => tool.name), ["a", "c"]);
    assert.equal("allowedTools" in request, false);
    assert.equal("tool_choice" in request, false);
    const none = toMessages({ ...layered(), activeTools: [] });
    assert.equal("tools" in none, false);
    assert.equal("allowedTools" in none, false);
  });

  it("gating keep lists every tool, byte-identical whatever the gates, and returns allowedTools", () => {
    const keep = (activeTools: string[]) =>
      toMessages({ ...layered(), activeTools }, {
        gating: "keep",
        cache: true,
      });
    const one = keep(["d", "a"]);
    const other = keep([]);
    assert.deepEqual(one.tools?.map((tool) => tool.name), ["a", "b", "c", "d"]);
    assert.equal(JSON.stringify(one.tools), JSON.stringify(other.tools));
    assert.deepEqual(one.allowedTools, ["a", "d"]);
    assert.deepEqual(other.allowedTools, []);
    assert.equal(
      "allowedTools" in toMessages(layered(), { gating: "keep" }),
      false,
    );
  });

  it("rejects bad options with INVALID_CONFIG", () => {
    for (const max of [5, -1, 1.5, "3"]) {
      assert.throws(
        () =>
          toMessages(layered(), {
            cache: true,
            maxCacheBreakpoints: max as number,
          }),
        rejects("INVALID_CONFIG", "maxCacheBreakpoints", "0 to 4"),
      );
    }
    assert.throws(
      () => toMessages(layered(), { breakpoints: "never" as "auto" }),
      rejects("INVALID_CONFIG", "breakpoints", '"never"'),
    );
    assert.throws(
      () => toMessages(layered(), { gating: "hide" as "keep" }),
      rejects("INVALID_CONFIG", "gating", '"hide"'),
    );
  });

  it("rejects a bad toolStability or activeTools with INVALID_ASSEMBLY", () => {
    assert.throws(
      () =>
        toMessages({ ...layered(), toolStability: { a: "often" as "agent" } }),
      rejects("INVALID_ASSEMBLY", "toolStability", '"a"', '"often"'),
    );
    assert.throws(
      () => toMessages({ ...layered(), toolStability: "x" as never }),
      rejects("INVALID_ASSEMBLY", "toolStability"),
    );
    assert.throws(
      () => toMessages({ ...layered(), activeTools: ["a", 3 as never] }),
      rejects("INVALID_ASSEMBLY", "activeTools"),
    );
  });
});

describe("OpenAI: explicit breakpoints, tool_choice and the cache key", () => {
  it("without cache, 0.2's output; tool_choice only with activeTools", () => {
    const chat = toChatCompletions(layered());
    assert.deepEqual(Object.keys(chat), ["system", "tools"]);
    assert.equal(chat.system.content, renderPrompt(layered()));
    const responses = toResponses(layered());
    assert.deepEqual(Object.keys(responses), ["instructions", "tools"]);
  });

  it("with cache, one part per block, at most 2 marks by default, never on a volatile block", () => {
    const assembly: TestAssembly = {
      ...layered(),
      toolStability: { c: "agent" },
    };
    const request = toChatCompletions(assembly, { cache: true });
    assert.deepEqual(request.system.content, [
      {
        type: "text",
        text: "Identity.\n\nRules.\n\n",
        prompt_cache_breakpoint: { mode: "explicit" },
      },
      {
        type: "text",
        text: "Persona.\n\n",
        prompt_cache_breakpoint: { mode: "explicit" },
      },
      { type: "text", text: "Memory." },
    ]);
    assert.equal(request.prompt_cache_key, promptCacheKey(assembly));
    const one = toResponses(assembly, {
      cache: { ttl: "12h" },
      maxCacheBreakpoints: 1,
    });
    assert.equal("instructions" in one, false);
    assert.deepEqual(
      one.system.content.map((part) => part.prompt_cache_breakpoint),
      [undefined, { mode: "explicit", ttl: "12h" }, undefined],
    );
    assert.equal(
      toChatCompletions(assembly, { cache: true, promptCacheKey: "mine" })
        .prompt_cache_key,
      "mine",
    );
  });

  it("marks no block after a volatile tool (SPEC 9.2)", () => {
    const request = toChatCompletions(layered(), { cache: true });
    assert.deepEqual(
      request.system.content.map((part) => part.prompt_cache_breakpoint),
      [undefined, undefined, undefined],
    );
  });

  it("keeps two marks for three breakpoint blocks: the latest", () => {
    const assembly: TestAssembly = {
      sections: ["a", "b", "c"].map((name) => ({
        name,
        order: 0,
        text: name,
        cacheBreakpoint: true,
      })),
      tools: [],
      variables: {},
    };
    const marks = toChatCompletions(assembly, { cache: true }).system.content
      .map((part) => part.prompt_cache_breakpoint !== undefined);
    assert.deepEqual(marks, [false, true, true]);
  });

  it("breakpoints: explicit marks only the blocks of breakpoint sections and the end", () => {
    const request = toChatCompletions(layered(), {
      cache: true,
      breakpoints: "explicit",
    });
    assert.deepEqual(request.system.content, [{
      type: "text",
      text: renderPrompt(layered()),
      prompt_cache_breakpoint: { mode: "explicit" },
    }]);
  });

  it("with cache, the runtime context, tools and tool_choice are sent as without", () => {
    for (const adapter of [toChatCompletions, toResponses]) {
      const context = [{ name: "date", order: 0, text: "Monday." }];
      for (
        const assembly of [
          { ...layered(), runtimeContext: context, activeTools: ["a"] },
          { ...layered(), runtimeContext: [], tools: [] },
        ] as TestAssembly[]
      ) {
        const plain: Record<string, unknown> = { ...adapter(assembly) };
        const cached: Record<string, unknown> = {
          ...adapter(assembly, { cache: true }),
        };
        for (const key of ["runtimeContext", "tools", "tool_choice"]) {
          assert.equal(key in cached, key in plain, `${adapter.name} ${key}`);
          assert.deepEqual(cached[key], plain[key], `${adapter.name} ${key}`);
        }
      }
      const sent = adapter({ ...layered(), runtimeContext: context }, {
        cache: true,
      });
      assert.deepEqual(sent.runtimeContext, {
        role: "user",
        content: "Monday.",
      });
    }
  });

  it("an empty prompt with cache is one empty part", () => {
    const request = toChatCompletions(
      { sections: [], tools: [], variables: {} },
      { cache: true },
    );
    assert.deepEqual(request.system.content, [{ type: "text", text: "" }]);
  });

  it("allowed_tools in canonical order, mode from toolChoiceMode; none when no tool is active", () => {
    const gated = { ...layered(), activeTools: ["d", "a", "gone"] };
    assert.deepEqual(toChatCompletions(gated).tool_choice, {
      type: "allowed_tools",
      allowed_tools: {
        mode: "auto",
        tools: [
          { type: "function", function: { name: "a" } },
          { type: "function", function: { name: "d" } },
        ],
      },
    });
    assert.deepEqual(
      toResponses(gated, { toolChoiceMode: "required" }).tool_choice,
      {
        type: "allowed_tools",
        mode: "required",
        tools: [{ type: "function", name: "a" }, {
          type: "function",
          name: "d",
        }],
      },
    );
    // Every tool stays listed: the tools block does not change with gates.
    assert.equal(toChatCompletions(gated).tools?.length, 4);
    assert.equal(
      toChatCompletions({ ...layered(), activeTools: [] }, { cache: true })
        .tool_choice,
      "none",
    );
  });

  it("rejects bad options with INVALID_CONFIG", () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ cache: { ttl: "5m" } }, "ttl"],
      [{ cache: "yes" }, "cache"],
      [{ cache: true, maxCacheBreakpoints: 5 }, "maxCacheBreakpoints"],
      [{ toolChoiceMode: "none" }, "toolChoiceMode"],
      [{ promptCacheKey: 3 }, "promptCacheKey"],
      [{ breakpoints: "all" }, "breakpoints"],
    ];
    for (const [options, part] of cases) {
      assert.throws(
        () => toChatCompletions(layered(), options as never),
        rejects("INVALID_CONFIG", part),
      );
      assert.throws(
        () => toResponses(layered(), options as never),
        rejects("INVALID_CONFIG", part),
      );
    }
  });
});

describe("promptCacheKey (SPEC 8.6)", () => {
  it("is the first 16 hex of SHA-256 over [non-volatile tools, prefix before the first volatile block, session]", () => {
    const assembly = layered();
    const tools = assembly.tools.slice(0, 3);
    const prefix = "Identity.\n\nRules.\n\nPersona.\n\n";
    const expected = (session: string | null) =>
      createHash("sha256").update(
        new TextEncoder().encode(JSON.stringify([tools, prefix, session])),
      ).digest("hex").slice(0, 16);
    assert.equal(promptCacheKey(assembly), expected(null));
    assert.equal(promptCacheKey(assembly, { session: "s-1" }), expected("s-1"));
    assert.match(promptCacheKey(assembly), /^[0-9a-f]{16}$/);
  });

  it("ignores volatile sections and tools; changes with stable content and the session", () => {
    const base = promptCacheKey(layered());
    const changed = layered();
    changed.sections[3].text = "Other memory.";
    changed.tools[3] = toolNamed("d", { type: "object", title: "new" });
    assert.equal(promptCacheKey(changed), base);
    const stable = layered();
    stable.sections[1].text = "Other rules.";
    assert.notEqual(promptCacheKey(stable), base);
    const tool = layered();
    tool.tools[0] = toolNamed("a", { type: "object", title: "new" });
    assert.notEqual(promptCacheKey(tool), base);
    assert.notEqual(promptCacheKey(layered(), { session: "x" }), base);
    assert.notEqual(
      promptCacheKey(layered(), { session: "x" }),
      promptCacheKey(layered(), { session: "y" }),
    );
  });

  it("rejects a non-string session with INVALID_CONFIG and a non-assembly with INVALID_ASSEMBLY", () => {
    assert.throws(
      () => promptCacheKey(layered(), { session: 4 as never }),
      rejects("INVALID_CONFIG", "session"),
    );
    assert.throws(
      () => promptCacheKey(null as never),
      rejects("INVALID_ASSEMBLY"),
    );
  });

  it("uses the automatic blocks whatever the adapter's breakpoints", () => {
    const explicit = toChatCompletions(layered(), {
      cache: true,
      breakpoints: "explicit",
    });
    assert.equal(explicit.prompt_cache_key, promptCacheKey(layered()));
    assert.equal(renderPromptBlocks(layered()).length, 3);
  });
});
