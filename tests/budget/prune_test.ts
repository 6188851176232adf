/**
 * SPEC 8.9, clause by clause: priority pruning under a token budget, through
 * `assemble(context, { budget })`, the config's `budget`, and the pure
 * `pruneToBudget`.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { firstValueFrom } from "rxjs";
import {
  type AssembledSection,
  diffAssemblies,
  type PromptAssembly,
  renderPrompt,
  SystemPrompt,
  type TokenBudget,
} from "../../mod.ts";
import { pruneToBudget } from "../../src/budget/prune.ts";
import { TokenMemo } from "../../src/budget/token_memo.ts";
import { rejects } from "../assertions.ts";

/** One token per character: sizes are easy to read in the tests. */
const chars = (text: string): number => text.length;

function budget(maxTokens: number, countTokens = chars): TokenBudget {
  return { maxTokens, countTokens };
}

function bare(config: ConstructorParameters<typeof SystemPrompt>[0] = {}) {
  return new SystemPrompt({ includeHarnessIdentity: false, ...config });
}

/** The names of the sections that render (the empty persona is left out). */
function names(assembly: PromptAssembly): string[] {
  return assembly.sections.filter((section) => section.text !== "").map((
    section,
  ) => section.name);
}

function section(
  name: string,
  text: string,
  extra: Partial<AssembledSection> = {},
): AssembledSection {
  return { name, order: 0, text, ...extra };
}

function prune(
  sections: AssembledSection[],
  maxTokens: number,
  terms: Record<string, { priority?: number; required?: boolean }> = {},
  tools: PromptAssembly["tools"] = [],
): PromptAssembly {
  return pruneToBudget(
    { sections, tools, variables: {} },
    { maxTokens, memo: new TokenMemo(chars) },
    {
      terms: new Map(
        Object.entries(terms).map(([name, { priority, required }]) => [
          name,
          { priority: priority ?? 0, required: required === true },
        ]),
      ),
    },
  );
}

describe("budget: what is pruned", () => {
  it("prunes nothing and adds no key when the prompt fits", async () => {
    const prompt = bare();
    prompt.section({ name: "a", order: 1, text: "aaaa" });
    prompt.section({ name: "b", order: 2, text: "bbbb" });
    const assembly = await prompt.assemble({}, { budget: budget(8) });
    assert.deepEqual(names(assembly), ["a", "b"]);
    assert.equal("pruned" in assembly, false);
    await prompt.dispose();
  });

  it("prunes the lowest priority first until the prompt fits (≤ maxTokens)", async () => {
    const prompt = bare();
    prompt.section({ name: "low", order: 1, text: "llll", priority: -1 });
    prompt.section({ name: "mid", order: 2, text: "mmmm" });
    prompt.section({ name: "high", order: 3, text: "hhhh", priority: 5 });
    const assembly = await prompt.assemble({}, { budget: budget(8) });
    assert.deepEqual(names(assembly), ["mid", "high"]);
    assert.deepEqual(assembly.pruned, [{ name: "low", tokens: 4 }]);
    const tighter = await prompt.assemble({}, { budget: budget(7) });
    assert.deepEqual(names(tighter), ["high"]);
    assert.deepEqual(tighter.pruned, [
      { name: "low", tokens: 4 },
      { name: "mid", tokens: 4 },
    ]);
    await prompt.dispose();
  });

  it("breaks priority ties by later order, then by code-unit name descending", () => {
    const result = prune([
      section("a", "xx", { order: 1 }),
      section("b", "xx", { order: 2 }),
      section("Z", "xx", { order: 2 }),
      section("c", "xx", { order: 0 }),
    ], 2);
    // order 2 first ("b" > "Z" in code units), then order 1.
    assert.deepEqual(result.pruned?.map((entry) => entry.name), [
      "b",
      "Z",
      "a",
    ]);
    assert.deepEqual(names(result), ["c"]);
  });

  it("prunes volatile sections before agent ones, agent before stable, whatever the priority", () => {
    const result = prune(
      [
        section("stable", "ss", { order: 1 }),
        section("agent", "aa", { order: 2, stability: "agent" }),
        section("volatile", "vv", { order: 3, stability: "volatile" }),
        section("stable-low", "ss", { order: 4 }),
      ],
      2,
      { volatile: { priority: 100 }, agent: { priority: 50 } },
    );
    assert.deepEqual(result.pruned?.map((entry) => entry.name), [
      "volatile",
      "agent",
      "stable-low",
    ]);
  });

  it("never prunes a required section, nor one that renders empty", () => {
    const result = prune(
      [
        section("must", "mmmm"),
        section("empty", ""),
        section("other", "oooo"),
      ],
      4,
      { must: { required: true, priority: -10 } },
    );
    assert.deepEqual(result.sections.map((entry) => entry.name), [
      "must",
      "empty",
    ]);
    assert.deepEqual(result.pruned, [{ name: "other", tokens: 4 }]);
  });

  it("counts each tool's JSON and never prunes a tool", () => {
    const tool = { name: "t", description: "d", parameters: {} };
    const json = JSON.stringify(tool).length;
    const result = prune(
      [section("a", "aa"), section("b", "bb")],
      json + 2,
      {},
      [
        tool,
      ],
    );
    assert.deepEqual(result.tools, [tool]);
    assert.deepEqual(names(result), ["a"]);
  });

  it("does not count the separators between sections", () => {
    const result = prune([section("a", "aa"), section("b", "bb")], 4);
    assert.deepEqual(names(result), ["a", "b"]);
    assert.equal(renderPrompt(result).length, 6);
  });

  it("counts rendered text, after interpolation and the escape", async () => {
    const prompt = bare();
    prompt.variable("v", () => "0123456789");
    prompt.section({ name: "ref", order: 1, text: "{{v}}" });
    prompt.section({ name: "esc", order: 2, text: "\\{{v}}" });
    const seen: string[] = [];
    const assembly = await prompt.assemble({}, {
      budget: {
        maxTokens: 10,
        countTokens: (text) => {
          seen.push(text);
          return text.length;
        },
      },
    });
    assert.deepEqual(seen.sort(), ["0123456789", "{{v}}"]);
    assert.deepEqual(assembly.pruned, [{ name: "esc", tokens: 5 }]);
    assert.deepEqual(names(assembly), ["ref"]);
    await prompt.dispose();
  });

  it("does not mutate the assembly it prunes", () => {
    const sections = [section("a", "aa"), section("b", "bb")];
    const assembly = { sections, tools: [], variables: {} };
    const copy = structuredClone(assembly);
    pruneToBudget(assembly, { maxTokens: 2, memo: new TokenMemo(chars) });
    assert.deepEqual(assembly, copy);
  });
});

describe("budget: where it runs", () => {
  it("uses the config's budget for every assembly, and explain() sees the pruned assembly", async () => {
    const prompt = bare({ budget: budget(4) });
    prompt.section({ name: "a", order: 1, text: "aaaa", priority: 1 });
    prompt.section({ name: "b", order: 2, text: "bbbb" });
    const assembly = await prompt.assemble();
    assert.deepEqual(names(assembly), ["a"]);
    const explanation = await prompt.explain();
    assert.deepEqual(explanation.assembly.pruned, [{ name: "b", tokens: 4 }]);
    assert.equal(explanation.prompt, "aaaa");
    await prompt.dispose();
  });

  it("explain() says what was pruned and why, counting as the budget does", async () => {
    const prompt = bare({ budget: budget(8) });
    prompt.section({ name: "keep", order: 1, text: "kkkk", required: true });
    prompt.section({ name: "low", order: 2, text: "llll", priority: -2 });
    prompt.section({ name: "mid", order: 3, text: "mmmm" });
    prompt.section({
      name: "news",
      order: 4,
      text: "nnnn",
      stability: "volatile",
      priority: 9,
    });
    const explanation = await prompt.explain(undefined, { countTokens: chars });
    assert.deepEqual(
      explanation.pruned?.map(({ name, tokens, stability, priority }) => ({
        name,
        tokens,
        stability,
        priority,
      })),
      [
        { name: "news", tokens: 4, stability: "volatile", priority: 9 },
        { name: "low", tokens: 4, stability: "stable", priority: -2 },
      ],
    );
    assert.match(
      explanation.pruned![0].reason,
      /^1st pruned to fit maxTokens 8 \(the prompt took 16\): a volatile section of priority 9/,
    );
    assert.match(explanation.pruned![1].reason, /^2nd pruned/);
    assert.deepEqual(explanation.assembly.pruned, [
      { name: "news", tokens: 4 },
      { name: "low", tokens: 4 },
    ]);
    // The explanation's counts add up to what the budget kept.
    const kept = explanation.sections.reduce(
      (sum, o) => sum + (o.tokens ?? 0),
      0,
    );
    assert.equal(kept, 8);
    // Nothing pruned: no key.
    const roomy = bare();
    roomy.section({ name: "a", order: 1, text: "a" });
    assert.equal("pruned" in await roomy.explain(), false);
    await roomy.dispose();
    await prompt.dispose();
  });

  it("assemble$(context, { budget }) prunes as assemble() does, and fails typed", async () => {
    const prompt = bare();
    prompt.section({ name: "a", order: 1, text: "aaaa", priority: 1 });
    prompt.section({ name: "b", order: 2, text: "bbbb" });
    const assembly = await firstValueFrom(
      prompt.assemble$({}, { budget: budget(4) }),
    );
    assert.deepEqual(names(assembly), ["a"]);
    assert.deepEqual(assembly.pruned, [{ name: "b", tokens: 4 }]);
    await assert.rejects(
      firstValueFrom(prompt.assemble$({}, { budget: budget(0) })),
      rejects("INVALID_CONFIG", "maxTokens"),
    );
    prompt.section({ name: "c", order: 3, text: "cccc", required: true });
    prompt.section({ name: "d", order: 4, text: "dddd", required: true });
    await assert.rejects(
      firstValueFrom(prompt.assemble$({}, { budget: budget(4) })),
      rejects("BUDGET_EXCEEDED", '"c" (4), "d" (4)'),
    );
    await prompt.dispose();
  });

  it("lets an assemble() call's budget replace the config's", async () => {
    const prompt = bare({ budget: budget(4) });
    prompt.section({ name: "a", order: 1, text: "aaaa" });
    prompt.section({ name: "b", order: 2, text: "bbbb" });
    assert.deepEqual(
      names(await prompt.assemble({}, { budget: budget(100) })),
      ["a", "b"],
    );
    assert.deepEqual(names(await prompt.assemble({}, {})), ["a"]);
    await prompt.dispose();
  });

  it("prunes after the waterfall: a listener's section counts, with the defaults", async () => {
    const prompt = bare();
    prompt.section({ name: "a", order: 1, text: "aaaa", priority: -1 });
    prompt.onAssemble((assembly) => {
      assembly.sections.push({ name: "listener", order: 9, text: "llll" });
      return assembly;
    });
    const assembly = await prompt.assemble({}, { budget: budget(4) });
    assert.deepEqual(names(assembly), ["listener"]);
    assert.deepEqual(assembly.pruned, [{ name: "a", tokens: 4 }]);
    await prompt.dispose();
  });

  it("prunes after the complete-section replacement", async () => {
    const prompt = bare();
    prompt.section({ name: "other", order: 1, text: "o".repeat(100) });
    prompt.section({ name: "whole", order: 2, text: "wwww", complete: true });
    const assembly = await prompt.assemble({}, { budget: budget(4) });
    assert.deepEqual(names(assembly), ["whole"]);
    assert.equal("pruned" in assembly, false);
    const tight = await prompt.assemble({}, { budget: budget(3) });
    assert.deepEqual(names(tight), []);
    assert.deepEqual(tight.pruned, [{ name: "whole", tokens: 4 }]);
    await prompt.dispose();
  });

  it("reads a scope section's own priority (the nearer layer's terms)", async () => {
    const prompt = bare();
    prompt.section({ name: "s", order: 1, text: "ssss", priority: 10 });
    prompt.section({ name: "t", order: 2, text: "tttt" });
    prompt.scope("agent").section({
      name: "s",
      order: 1,
      text: "ssss",
      priority: -10,
    });
    const global = await prompt.assemble({}, { budget: budget(4) });
    assert.deepEqual(names(global), ["s"]);
    const scoped = await prompt.assemble({ scope: "agent" }, {
      budget: budget(4),
    });
    assert.deepEqual(names(scoped), ["t"]);
    await prompt.dispose();
  });

  it("prunes a scope's section (agent tier) before a global one, whatever the priority, unless it says stable or required", async () => {
    const prompt = bare();
    prompt.section({ name: "house", order: 1, text: "hhhh", priority: -5 });
    const agent = prompt.scope("agent");
    agent.section({ name: "role", order: 2, text: "rrrr", priority: 10 });
    const tiered = await prompt.assemble({ scope: "agent" }, {
      budget: budget(4),
    });
    assert.deepEqual(names(tiered), ["house"]);
    agent.section({
      name: "stable-role",
      order: 3,
      text: "ssss",
      priority: 10,
      stability: "stable",
    });
    const stable = await prompt.assemble({ scope: "agent" }, {
      budget: budget(4),
    });
    assert.deepEqual(names(stable), ["stable-role"]);
    agent.section({
      name: "kept",
      order: 4,
      text: "kkkk",
      required: true,
    });
    const required = await prompt.assemble({ scope: "agent" }, {
      budget: budget(4),
    });
    assert.deepEqual(names(required), ["kept"]);
    await prompt.dispose();
  });
});

describe("budget: BUDGET_EXCEEDED", () => {
  it("names the largest required sections when they and the tools do not fit", async () => {
    const prompt = bare();
    prompt.section({
      name: "r1",
      order: 1,
      text: "1".repeat(5),
      required: true,
    });
    prompt.section({
      name: "r2",
      order: 2,
      text: "2".repeat(9),
      required: true,
    });
    prompt.section({
      name: "r3",
      order: 3,
      text: "3".repeat(7),
      required: true,
    });
    prompt.section({ name: "r4", order: 4, text: "4", required: true });
    prompt.section({ name: "free", order: 5, text: "f" });
    await assert.rejects(
      prompt.assemble({}, { budget: budget(20) }),
      rejects(
        "BUDGET_EXCEEDED",
        '"r2" (9), "r3" (7), "r1" (5)',
        "22 tokens",
        "20",
      ),
    );
    await prompt.dispose();
  });

  it("says when the tools alone exceed the budget, with their total", async () => {
    const prompt = bare();
    const tool = { name: "t", description: "d", parameters: {} };
    prompt.tools(() => ({ schemas: [tool] }));
    const json = JSON.stringify(tool).length;
    await assert.rejects(
      prompt.assemble({}, { budget: budget(json - 1) }),
      rejects("BUDGET_EXCEEDED", `tools alone take ${json} tokens`),
    );
    await prompt.dispose();
  });
});

describe("budget: edges", () => {
  it("tools that take exactly the budget fit alone; a required section over it is named", async () => {
    const prompt = bare();
    const tool = { name: "t", description: "d", parameters: {} };
    prompt.tools(() => ({ schemas: [tool] }));
    prompt.section({ name: "must", order: 1, text: "mm", required: true });
    const json = JSON.stringify(tool).length;
    await assert.rejects(
      prompt.assemble({}, { budget: budget(json) }),
      rejects("BUDGET_EXCEEDED", '"must" (2)', `the tools take ${json}`),
    );
    await prompt.dispose();
  });

  it("a shared memo prunes right when the candidates shrink between steps", () => {
    const memo = new TokenMemo(chars);
    const step = (sections: AssembledSection[], maxTokens: number) =>
      pruneToBudget(
        { sections, tools: [], variables: {} },
        { maxTokens, memo },
      ).pruned;
    const a = section("a", "aaaa", { order: 1 });
    const b = section("b", "bbbb", { order: 2 });
    const c = section("c", "cccc", { order: 3 });
    assert.deepEqual(step([a, b, c], 5), [
      { name: "c", tokens: 4 },
      { name: "b", tokens: 4 },
    ]);
    // The same keys, one fewer: the last ranking must not be reused.
    assert.deepEqual(step([a, b], 5), [{ name: "b", tokens: 4 }]);
    assert.deepEqual(step([a, b, c], 9), [{ name: "c", tokens: 4 }]);
  });

  it("a shared memo prunes right when a section's keys change in place", () => {
    const memo = new TokenMemo(chars);
    const step = (
      sections: AssembledSection[],
      { maxTokens = 8, tools = [], terms }: {
        maxTokens?: number;
        tools?: PromptAssembly["tools"];
        terms?: Map<string, { priority: number; required: boolean }>;
      } = {},
    ) =>
      pruneToBudget(
        { sections, tools, variables: {} },
        { maxTokens, memo },
        { terms },
      ).pruned?.map(({ name }) => name);
    const a = section("a", "aaaa", { order: 1 });
    const b = section("b", "bbbb", { order: 2 });
    const c = section("c", "cccc", { order: 3 });
    assert.deepEqual(step([a, b, c]), ["c"]);
    assert.deepEqual(step([a, b, c]), ["c"]);
    // The same texts in the same places, other keys.
    assert.deepEqual(step([section("a", "aaaa", { order: 9 }), b, c]), ["a"]);
    assert.deepEqual(
      step([a, section("b", "bbbb", { order: 2, stability: "volatile" }), c]),
      ["b"],
    );
    assert.deepEqual(step([a, b, section("z", "cccc", { order: 3 })]), ["z"]);
    assert.deepEqual(step([a, b, c]), ["c"]);
    // New terms: read again, though the sections are the same.
    const terms = new Map([["c", { priority: 5, required: false }]]);
    assert.deepEqual(step([a, b, c], { terms }), ["b"]);
    assert.deepEqual(step([a, b, c], { terms }), ["b"]);
    const required = new Map([
      ["b", { priority: 0, required: true }],
      ["c", { priority: 5, required: false }],
    ]);
    assert.deepEqual(step([a, b, c], { terms: required }), ["a"]);
    // The same counts, another budget or other tools: decided again.
    assert.deepEqual(step([a, b, c], { maxTokens: 4 }), ["c", "b"]);
    // The tool's JSON takes 45 tokens.
    const tools = [{ name: "t", description: "", parameters: {} }];
    assert.deepEqual(step([a, b, c], { maxTokens: 53 }), undefined);
    assert.deepEqual(step([a, b, c], { maxTokens: 53, tools }), ["c"]);
    const longer = [{ ...tools[0], name: "tt" }];
    assert.deepEqual(step([a, b, c], { maxTokens: 53, tools: longer }), [
      "c",
      "b",
    ]);
    assert.deepEqual(step([a, b, c], { maxTokens: 49, tools }), ["c", "b"]);
    assert.deepEqual(step([a, b, c]), ["c"]);
  });
});

describe("budget: a shared memo across steps", () => {
  type Terms = Map<string, { priority: number; required: boolean }>;
  /** Each step's kept and pruned names, through one memo. */
  function stepper() {
    const memo = new TokenMemo(chars);
    return (
      sections: AssembledSection[],
      { maxTokens = 8, terms }: { maxTokens?: number; terms?: Terms } = {},
    ) => {
      const pruned = pruneToBudget(
        { sections, tools: [], variables: {} },
        { maxTokens, memo },
        { terms },
      );
      return {
        kept: pruned.sections.map(({ name }) => name),
        pruned: pruned.pruned?.map(({ name }) => name),
      };
    };
  }
  const a = section("a", "aaaa", { order: 1 });
  const b = section("b", "bbbb", { order: 2 });
  const c = section("c", "cccc", { order: 3 });

  it("keeps the right sections when the candidates move to other indexes", () => {
    const step = stepper();
    assert.deepEqual(step([a, b, c]), { kept: ["a", "b"], pruned: ["c"] });
    const empty = section("e", "", { order: 0 });
    assert.deepEqual(step([empty, a, b, c]), {
      kept: ["e", "a", "b"],
      pruned: ["c"],
    });
  });

  it("sees a change of name, tier or order in the first place", () => {
    const step = stepper();
    assert.deepEqual(step([c, a, b]).pruned, ["c"]);
    assert.deepEqual(step([section("z", "cccc", { order: 3 }), a, b]), {
      kept: ["a", "b"],
      pruned: ["z"],
    });
    assert.deepEqual(step([c, a, b]).pruned, ["c"]);
    assert.deepEqual(
      step([section("c", "cccc", { order: 3, stability: "agent" }), a, b])
        .pruned,
      ["c"],
    );
    assert.deepEqual(
      step([c, section("a", "aaaa", { order: 1, stability: "volatile" }), b])
        .pruned,
      ["a"],
    );
  });

  it("ranks again when every candidate's tier, priority, order or name changed", () => {
    const step = stepper();
    assert.deepEqual(step([a, b, c]).pruned, ["c"]);
    // Every tier changes: b goes first.
    assert.deepEqual(
      step([
        section("a", "aaaa", { order: 1, stability: "agent" }),
        section("b", "bbbb", { order: 2, stability: "volatile" }),
        section("c", "cccc", { order: 3, stability: "agent" }),
      ]).pruned,
      ["b"],
    );
    assert.deepEqual(step([a, b, c]).pruned, ["c"]);
    // Every priority changes (new terms): a, the lowest, goes first.
    const terms: Terms = new Map([
      ["a", { priority: 1, required: false }],
      ["b", { priority: 2, required: false }],
      ["c", { priority: 3, required: false }],
    ]);
    assert.deepEqual(step([a, b, c], { terms }).pruned, ["a"]);
    assert.deepEqual(step([a, b, c]).pruned, ["c"]);
    // Every order changes: a, now the latest, goes first.
    assert.deepEqual(
      step([
        section("a", "aaaa", { order: 3 }),
        section("b", "bbbb", { order: 1 }),
        section("c", "cccc", { order: 2 }),
      ]).pruned,
      ["a"],
    );
    // Equal orders, every name changes: the highest name goes first.
    const x = section("x", "aaaa"), y = section("y", "bbbb");
    const z = section("z", "cccc");
    assert.deepEqual(step([x, y, z]).pruned, ["z"]);
    assert.deepEqual(
      step([section("r", "aaaa"), section("q", "bbbb"), section("p", "cccc")])
        .pruned,
      ["r"],
    );
  });

  it("decides again when the counts change but not their total", () => {
    const step = stepper();
    const long = section("a", "aaaaaa", { order: 1 });
    const short = section("c", "cc", { order: 3 });
    // 6 + 4 + 2 = 12 over 8: c (2) then b (4) go.
    assert.deepEqual(step([long, b, short]).pruned, ["c", "b"]);
    // 4 + 4 + 4 = 12 over 8: c alone is enough.
    assert.deepEqual(step([a, b, c]).pruned, ["c"]);
  });
});

describe("budget: bad input", () => {
  for (
    const [label, maxTokens] of [
      ["0", 0],
      ["negative", -5],
      ["NaN", NaN],
      ["Infinity", Infinity],
      ["a string", "10"],
      ["absent", undefined],
    ] as const
  ) {
    it(`rejects maxTokens ${label} with INVALID_CONFIG, in the config and per call`, async () => {
      const given = { maxTokens, countTokens: chars } as unknown as TokenBudget;
      assert.throws(
        () => bare({ budget: given }),
        rejects("INVALID_CONFIG", "maxTokens", "config budget"),
      );
      const prompt = bare();
      await assert.rejects(
        prompt.assemble({}, { budget: given }),
        rejects("INVALID_CONFIG", "maxTokens", "assemble() budget"),
      );
      await prompt.dispose();
    });
  }

  it("rejects a budget or options that are not objects, and a throwing getter", async () => {
    assert.throws(
      () => bare({ budget: 5 as unknown as TokenBudget }),
      rejects("INVALID_CONFIG", "{ maxTokens, countTokens }"),
    );
    const prompt = bare();
    await assert.rejects(
      prompt.assemble({}, 5 as unknown as { budget: TokenBudget }),
      rejects("INVALID_CONFIG", "{ budget? }"),
    );
    const hostile = {
      get maxTokens(): number {
        throw new Error("no");
      },
      countTokens: chars,
    };
    await assert.rejects(
      prompt.assemble({}, { budget: hostile }),
      rejects("INVALID_CONFIG", "Reading the assemble() budget threw"),
    );
    await prompt.dispose();
  });

  it("rejects a counter that is not a function with INVALID_PROVIDER", () => {
    assert.throws(
      () =>
        bare({
          budget: {
            maxTokens: 5,
            countTokens: "words",
          } as unknown as TokenBudget,
        }),
      rejects("INVALID_PROVIDER", "countTokens"),
    );
  });

  for (
    const [label, answer] of [
      ["a fraction", 1.5],
      ["a negative number", -1],
      ["NaN", NaN],
      ["a string", "3"],
      ["undefined", undefined],
    ] as const
  ) {
    it(`rejects a counter returning ${label} with PROVIDER_FAILED naming the text`, async () => {
      const prompt = bare();
      prompt.section({ name: "a", order: 1, text: "aaaa" });
      await assert.rejects(
        prompt.assemble({}, {
          budget: { maxTokens: 9, countTokens: () => answer as number },
        }),
        rejects("PROVIDER_FAILED", 'section "a"', "whole number"),
      );
      await prompt.dispose();
    });
  }

  it("rejects a counter that throws with PROVIDER_FAILED, keeping the cause", async () => {
    const prompt = bare();
    prompt.section({ name: "a", order: 1, text: "aaaa" });
    const failure = new Error("tokenizer down");
    await assert.rejects(
      prompt.assemble({}, {
        budget: {
          maxTokens: 9,
          countTokens: () => {
            throw failure;
          },
        },
      }),
      (error: Error) => {
        rejects("PROVIDER_FAILED", 'section "a"')(error);
        assert.equal(error.cause, failure);
        return true;
      },
    );
    await prompt.dispose();
  });

  for (
    const [label, priority] of [
      ["NaN", NaN],
      ["Infinity", Infinity],
      ["-Infinity", -Infinity],
      ["a string", "high"],
      ["null", null],
    ] as const
  ) {
    it(`rejects priority ${label} with INVALID_SECTION naming the section`, () => {
      const prompt = bare();
      assert.throws(
        () =>
          prompt.section({
            name: "s",
            order: 1,
            text: "x",
            priority: priority as number,
          }),
        rejects("INVALID_SECTION", '"s"', "priority"),
      );
    });
  }

  it("rejects a required that is not a boolean", () => {
    const prompt = bare();
    assert.throws(
      () =>
        prompt.section({
          name: "s",
          order: 1,
          text: "x",
          required: "yes" as unknown as boolean,
        }),
      rejects("INVALID_SECTION", '"s"', "required"),
    );
  });
});

describe("budget: the counter's memo", () => {
  it("calls the counter once per distinct text across repeated assemblies", async () => {
    const prompt = bare();
    let step = 0;
    prompt.variable("step", () => String(step));
    prompt.section({ name: "a", order: 1, text: "fixed text" });
    prompt.section({ name: "b", order: 2, text: "step {{step}}" });
    prompt.tools(() => ({
      schemas: [{ name: "t", description: "d", parameters: {} }],
    }));
    const calls = new Map<string, number>();
    const countTokens = (text: string): number => {
      calls.set(text, (calls.get(text) ?? 0) + 1);
      return 1;
    };
    for (let round = 0; round < 3; round++) {
      for (step = 0; step < 4; step++) {
        await prompt.assemble({}, { budget: { maxTokens: 100, countTokens } });
      }
    }
    assert.equal(calls.size, 6); // "fixed text", 4 steps, the tool's JSON
    assert.deepEqual([...new Set(calls.values())], [1]);
    await prompt.dispose();
  });

  it("keeps one memo per registry: another registry calls the counter again", async () => {
    let calls = 0;
    const countTokens = (text: string): number => {
      calls++;
      return text.length;
    };
    for (const prompt of [bare(), bare()]) {
      prompt.section({ name: "a", order: 1, text: "aaaa" });
      await prompt.assemble({}, { budget: { maxTokens: 100, countTokens } });
      await prompt.assemble({}, { budget: { maxTokens: 100, countTokens } });
      await prompt.dispose();
    }
    assert.equal(calls, 2);
  });

  it("stays bounded: a generation turns over past its size", () => {
    const memo = new TokenMemo(chars, { maxEntries: 10, maxChars: 1_000 });
    for (let index = 0; index < 1_000; index++) {
      memo.count(`text ${index}`, () => "text");
    }
    assert.ok(memo.stats().entries <= 20, `${memo.stats().entries}`);
    const chunky = new TokenMemo(chars, { maxChars: 100 });
    for (let index = 0; index < 100; index++) {
      chunky.count(`${index}`.padEnd(30, "."), () => "text");
    }
    assert.ok(chunky.stats().chars <= 200, `${chunky.stats().chars}`);
    // A text used at every step survives turnovers.
    let calls = 0;
    const kept = new TokenMemo((text) => {
      calls++;
      return text.length;
    }, { maxEntries: 10 });
    for (let index = 0; index < 1_000; index++) {
      kept.count("always", () => "text");
      kept.count(`other ${index}`, () => "text");
    }
    assert.equal(calls, 1_001);
  });
});

describe("budget: the cached prefix", () => {
  it("prunes a growing volatile section first and leaves the stable prefix byte-identical", async () => {
    const prompt = bare();
    let memory = "note";
    prompt.section({ name: "rules", order: 1, text: "r".repeat(40) });
    prompt.section({
      name: "style",
      order: 2,
      text: "s".repeat(40),
      priority: -1,
    });
    prompt.section({
      name: "memory",
      order: 3,
      text: () => memory,
      stability: "volatile",
      priority: 10,
    });
    const options = { budget: budget(85) };
    const before = await prompt.assemble({}, options);
    assert.deepEqual(names(before), ["rules", "style", "memory"]);
    assert.equal(
      before.sections.find((s) => s.name === "memory")?.stability,
      "volatile",
    );
    memory = "note ".repeat(20);
    const after = await prompt.assemble({}, options);
    // The volatile section goes, although its priority is the highest.
    assert.deepEqual(after.pruned, [{ name: "memory", tokens: memory.length }]);
    assert.deepEqual(names(after), ["rules", "style"]);
    const diff = diffAssemblies(before, after);
    assert.equal(diff.cache.toolsStable, true);
    assert.equal(
      diff.cache.promptStablePrefix,
      renderPrompt(after).length,
      "everything left is the cached prefix",
    );
    // However large the volatile section grows, the same stable sections stay.
    for (const size of [200, 2_000, 20_000]) {
      memory = "m".repeat(size);
      assert.deepEqual(names(await prompt.assemble({}, options)), [
        "rules",
        "style",
      ]);
    }
    await prompt.dispose();
  });
});
