/**
 * SPEC 7.2, as properties over random registrations in the global layer and
 * one scope, with and without a listener: `explain().assembly` deep-equals
 * `assemble()`; `explain().sections[i]` offsets slice `prompt` to exactly the
 * rendered text of section i; origins and shadowed entries match a
 * reference computed from the registrations.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  HARNESS_IDENTITY_SECTION,
  PERSONA_SECTION,
  type PromptAssembly,
  type PromptExplanation,
  renderPrompt,
  SystemPrompt,
} from "../../mod.ts";
import { tool } from "../fixtures.ts";
import { fuzzRuns } from "../fuzz_runs.ts";

/** Fixed, so a failure replays; fast-check prints it with the path. */
const SEED = 20261202;
const RUNS = fuzzRuns(200);

const SECTION_NAMES = ["a", "b", "B", "é", PERSONA_SECTION];
const TOOL_NAMES = ["read", "write", "Shell", "é"];
const TEXTS = ["", "x", "Hi {{model}}.", "x\n\ny", "😀", "{{ literal"];

const sectionsArb = fc.uniqueArray(
  fc.record({
    name: fc.constantFrom(...SECTION_NAMES),
    order: fc.constantFrom(-1, 0, 1),
    text: fc.constantFrom(...TEXTS),
    asFunction: fc.boolean(),
  }),
  { selector: (section) => section.name, maxLength: 4 },
);

const layerArb = fc.record({
  sections: sectionsArb,
  tools: fc.uniqueArray(fc.constantFrom(...TOOL_NAMES), { maxLength: 3 }),
  model: fc.option(fc.constantFrom("m1", "😀"), { nil: undefined }),
});

/** What the listener does to the registry's contribution. */
const LISTENERS = ["none", "append", "retext", "drop", "tool"] as const;

const caseArb = fc.record({
  global: layerArb,
  scope: layerArb,
  scoped: fc.boolean(),
  listener: fc.constantFrom(...LISTENERS),
});

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;
type Listener = (typeof LISTENERS)[number];

function registryOf(input: Case): SystemPrompt {
  const prompt = new SystemPrompt({ persona: "Persona {{model}}." });
  const scope = prompt.scope("agent", { label: "agent" });
  // `model` always has a value, so every generated prompt renders.
  prompt.variable("model", () => input.global.model ?? "m0");
  for (
    const [registrar, layer] of [[prompt, input.global], [
      scope,
      input.scope,
    ]] as const
  ) {
    for (const { name, order, text, asFunction } of layer.sections) {
      // The global layer already holds the persona: register it in scopes only.
      if (registrar === prompt && name === PERSONA_SECTION) continue;
      registrar.section({ name, order, text: asFunction ? () => text : text });
    }
    if (layer.tools.length > 0) {
      const names = layer.tools;
      registrar.tools(() => ({ schemas: names.map((name) => tool(name)) }));
    }
  }
  if (input.scope.model !== undefined) {
    const model = input.scope.model;
    scope.variable("model", () => model);
  }
  if (input.listener !== "none") prompt.onAssemble(listenerOf(input.listener));
  return prompt;
}

function listenerOf(kind: Listener) {
  return (assembly: PromptAssembly) => {
    if (kind === "append") {
      assembly.sections.push({ name: "added", order: 9, text: "Added." });
    } else if (kind === "retext") {
      const last = assembly.sections.at(-1)!;
      last.text = `${last.text}!`;
    } else if (kind === "drop") {
      assembly.sections.shift();
    } else if (kind === "tool") {
      assembly.tools.push(tool("from_listener"));
    }
    return assembly;
  };
}

/** Section i rendered on its own: the offsets' oracle. */
function renderedAlone(assembly: PromptAssembly, index: number): string {
  return renderPrompt({ ...assembly, sections: [assembly.sections[index]] });
}

function checkOffsets(explanation: PromptExplanation): void {
  const { assembly, prompt, sections } = explanation;
  assert.equal(prompt, renderPrompt(assembly));
  assert.deepEqual(
    sections.map((origin) => origin.name),
    assembly.sections.map((section) => section.name),
  );
  let previous = 0;
  sections.forEach((origin, index) => {
    assert.ok(origin.start >= previous && origin.end >= origin.start);
    previous = origin.end;
    assert.equal(
      prompt.slice(origin.start, origin.end),
      renderedAlone(assembly, index),
    );
  });
}

/** The registry's origins and shadowed entries, computed from the input. */
function checkOrigins(input: Case, explanation: PromptExplanation): void {
  const scopeSections = new Set(input.scope.sections.map((s) => s.name));
  const globalSections = new Set([
    HARNESS_IDENTITY_SECTION,
    PERSONA_SECTION,
    ...input.global.sections.map((s) => s.name),
  ]);
  const scopeTools = new Set(input.scope.tools);
  const scoped = input.scoped;
  const layerOf = (name: string, nearer: Set<string>) =>
    scoped && nearer.has(name) ? "scope" : "global";

  for (const origin of explanation.sections) {
    const expected = origin.name === "added" ||
        (input.listener === "retext" &&
          origin === explanation.sections.at(-1))
      ? "listener"
      : layerOf(origin.name, scopeSections);
    assert.equal(origin.layer, expected, origin.name);
    if (origin.layer === "scope") assert.equal(origin.scope, "agent");
  }
  for (const origin of explanation.tools) {
    const expected = origin.name === "from_listener"
      ? "listener"
      : layerOf(origin.name, scopeTools);
    assert.equal(origin.layer, expected, origin.name);
  }
  const modelScoped = scoped && input.scope.model !== undefined;
  assert.deepEqual(explanation.variables, [{
    name: "model",
    registrar: modelScoped ? "registry/agent" : "registry",
    layer: modelScoped ? "scope" : "global",
    ...(modelScoped ? { scope: "agent" } : {}),
    defined: true,
    stability: modelScoped ? "agent" : "stable",
    stabilityReason: "layer default",
  }]);

  const shadowed = explanation.shadowed.map((o) => `${o.kind}:${o.name}`);
  const expected = !scoped ? [] : [
    ...[...globalSections].filter((name) => scopeSections.has(name))
      .map((name) => [name, sortKey(input, name)] as const)
      .sort((a, b) => a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0)
      .map(([name]) => `section:${name}`),
    ...(modelScoped ? ["variable:model"] : []),
    ...input.global.tools.filter((name) => scopeTools.has(name))
      .map((name) => `tool:${name}`),
  ];
  assert.deepEqual(shadowed, expected);
  for (const origin of explanation.shadowed) {
    assert.equal(origin.by, "registry/agent");
    assert.equal(origin.layer, "global");
  }
}

/** The global layer's stored order of a section: by order, then name. */
function sortKey(input: Case, name: string): string {
  const order = name === HARNESS_IDENTITY_SECTION
    ? -100
    : name === PERSONA_SECTION
    ? 0
    : input.global.sections.find((s) => s.name === name)!.order;
  // Orders are -100..1: shift to keep the string comparison numeric.
  return `${String(order + 1000).padStart(5, "0")}:${name}`;
}

describe("explain(): properties", () => {
  it("the assembly is assemble()'s, offsets slice the prompt, origins match the registrations", async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (input) => {
        const prompt = registryOf(input);
        const context = input.scoped ? { scope: "agent" } : {};
        try {
          const explanation = await prompt.explain(context);
          assert.deepEqual(
            explanation.assembly,
            await prompt.assemble(context),
          );
          checkOffsets(explanation);
          checkOrigins(input, explanation);
        } finally {
          await prompt.dispose();
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
