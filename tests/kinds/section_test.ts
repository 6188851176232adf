import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type AssembleContext,
  PERSONA_SECTION,
  SystemPrompt,
} from "../../mod.ts";
import { rejects } from "../assertions.ts";
import { ownSections } from "../fixtures.ts";

function shuffle<T>(items: readonly T[], seed: number): T[] {
  const result = items.slice();
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = result.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [result[i], result[j]] = [result[j], result[i]];
  }
  return result;
}

describe("sections", () => {
  it("merges by name, a scope section replacing the global one entirely", async () => {
    const prompt = new SystemPrompt();
    const key = { id: "agent" };
    prompt.section({ name: "rules", order: 10, text: "global rules" });
    prompt.section({ name: "style", order: 20, text: "global style" });
    const scoped = prompt.scope(key);
    scoped.section({ name: "rules", order: 30, text: "agent rules" });
    scoped.section({ name: "extra", order: 15, text: "agent extra" });

    const global = await prompt.assemble();
    assert.deepEqual(global.sections.slice(2), [
      { name: "rules", order: 10, text: "global rules" },
      { name: "style", order: 20, text: "global style" },
    ]);
    const forAgent = await prompt.assemble({ scope: key });
    // A scope's sections are "agent" by default (SPEC 8.1).
    assert.deepEqual(forAgent.sections.slice(2), [
      { name: "extra", order: 15, text: "agent extra", stability: "agent" },
      { name: "style", order: 20, text: "global style" },
      { name: "rules", order: 30, text: "agent rules", stability: "agent" },
    ]);
  });

  it("calls text functions with the context, and does not interpolate", async () => {
    const prompt = new SystemPrompt<AssembleContext & { who?: string }>();
    prompt.variable("model", () => "m");
    prompt.section({
      name: "dynamic",
      order: 1,
      text: (context) => `hello ${context.who ?? "nobody"} on {{model}}`,
    });
    assert.equal(
      (await prompt.assemble({ who: "ada" })).sections[2].text,
      "hello ada on {{model}}",
    );
    assert.equal(
      (await prompt.assemble()).sections[2].text,
      "hello nobody on {{model}}",
    );
  });

  it("sorts by order, then by code-unit name, never by registration order", async () => {
    const specs: [string, number][] = [
      ["b", 1],
      ["a", 1],
      ["B", 1],
      ["Z", 1],
      ["é", 1],
      ["e", 1],
      ["a10", 1],
      ["a9", 1],
      ["\uffff", 1],
      ["😀", 1],
      ["late", 1000],
      ["early", -5],
      ["half", 0.5],
      ["neg", -1e-9],
    ];
    const expected = [
      "early",
      "neg",
      PERSONA_SECTION,
      "half",
      "B",
      "Z",
      "a",
      "a10",
      "a9",
      "b",
      "e",
      "é",
      "😀",
      "\uffff",
      "late",
    ];
    const orders = [specs, specs.slice().reverse()];
    for (let seed = 1; seed <= 8; seed++) orders.push(shuffle(specs, seed));
    for (const order of orders) {
      const prompt = new SystemPrompt({ includeHarnessIdentity: false });
      for (const [name, position] of order) {
        prompt.section({ name, order: position, text: name });
      }
      const assembly = await prompt.assemble();
      assert.deepEqual(
        assembly.sections.map((section) => section.name),
        expected,
      );
    }
  });

  it("sorts global and scope sections together", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    const scoped = prompt.scope("agent");
    scoped.section({ name: "s2", order: 2, text: "" });
    prompt.section({ name: "g3", order: 3, text: "" });
    scoped.section({ name: "a", order: 1, text: "" });
    prompt.section({ name: "g1", order: 1, text: "" });
    assert.deepEqual(
      ownSections(await prompt.assemble({ scope: "agent" })),
      ["a", "g1", "s2", "g3"],
    );
  });

  it("rejects PROVIDER_FAILED when a text function returns a non-string", async () => {
    const prompt = new SystemPrompt();
    prompt.section({
      name: "bad-text",
      order: 1,
      text: () => undefined as unknown as string,
    });
    await assert.rejects(
      prompt.assemble(),
      rejects("PROVIDER_FAILED", /bad-text/),
    );
  });

  it("re-reads nothing stale: later assemblies of an unchanged registry call text functions again, in order, on fresh objects", async () => {
    const prompt = new SystemPrompt<AssembleContext & { step: number }>();
    const calls: string[] = [];
    prompt.section({ name: "a", order: 1, text: "static a" });
    prompt.section({
      name: "b",
      order: 2,
      text: (context) => {
        calls.push(`b${context.step}`);
        return `step ${context.step}`;
      },
      cacheBreakpoint: true,
    });
    prompt.section({
      name: "c",
      order: 3,
      text: (context) => {
        calls.push(`c${context.step}`);
        return "dynamic c";
      },
    });
    prompt.section({
      name: "d",
      order: 4,
      text: "static d",
      cacheBreakpoint: true,
    });
    const first = await prompt.assemble({ step: 1 });
    for (const section of first.sections) {
      section.text = "mutated";
      section.cacheBreakpoint = true;
    }
    const second = await prompt.assemble({ step: 2 });
    const own = second.sections.filter((s) => "abcd".includes(s.name));
    assert.deepEqual(own, [
      { name: "a", order: 1, text: "static a" },
      { name: "b", order: 2, text: "step 2", cacheBreakpoint: true },
      { name: "c", order: 3, text: "dynamic c" },
      { name: "d", order: 4, text: "static d", cacheBreakpoint: true },
    ]);
    assert.deepEqual(calls, ["b1", "c1", "b2", "c2"]);
  });

  it("a throwing text function stops the later ones on every assembly, not only the first", async () => {
    const prompt = new SystemPrompt();
    const calls: string[] = [];
    prompt.section({
      name: "first",
      order: 1,
      text: () => {
        calls.push("first");
        throw new Error("boom");
      },
    });
    prompt.section({
      name: "second",
      order: 2,
      text: () => {
        calls.push("second");
        return "x";
      },
    });
    await assert.rejects(
      prompt.assemble(),
      rejects("PROVIDER_FAILED", '"first"'),
    );
    await assert.rejects(
      prompt.assemble(),
      rejects("PROVIDER_FAILED", '"first"'),
    );
    assert.deepEqual(calls, ["first", "first"]);
  });

  it("a registration after an assembly is in the next one, and a disposal leaves it", async () => {
    const prompt = new SystemPrompt();
    prompt.section({ name: "a", order: 1, text: "A" });
    assert.deepEqual(ownSections(await prompt.assemble()), ["a"]);
    const dispose = prompt.section({ name: "b", order: 0, text: "B" });
    assert.deepEqual(ownSections(await prompt.assemble()), ["b", "a"]);
    await dispose();
    assert.deepEqual(ownSections(await prompt.assemble()), ["a"]);
  });
});
