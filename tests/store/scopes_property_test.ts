/**
 * Property (SPEC 7.3): for random scope chains and random registrations of
 * every kind spread over the global layer and the scopes, an assembly for
 * any scope equals a reference computed by merging the chain's layers
 * farthest first (nearest name wins), and the listeners of the chain's
 * layers run in registration order.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type PromptAssembly,
  type Registrar,
  SystemPrompt,
  type ToolSchema,
} from "../../mod.ts";
import { fuzzRuns } from "../fuzz_runs.ts";

const SEED = 71_203;
const RUNS = fuzzRuns(150);
const SCOPES = ["s0", "s1", "s2", "s3", "s4"];

type Entry =
  | { kind: "section"; layer: number; name: string; order: number }
  | { kind: "variable"; layer: number; name: string }
  | { kind: "tool"; layer: number; name: string }
  | { kind: "runtimeContext"; layer: number; name: string; order: number }
  | { kind: "listener"; layer: number };

const layer = fc.integer({ min: -1, max: SCOPES.length - 1 });
const name = fc.constantFrom("a", "b", "c", "d");
const order = fc.integer({ min: -2, max: 2 });
const entry: fc.Arbitrary<Entry> = fc.oneof(
  fc.record({ kind: fc.constant("section" as const), layer, name, order }),
  fc.record({ kind: fc.constant("variable" as const), layer, name }),
  fc.record({ kind: fc.constant("tool" as const), layer, name }),
  fc.record({
    kind: fc.constant("runtimeContext" as const),
    layer,
    name,
    order,
  }),
  fc.record({ kind: fc.constant("listener" as const), layer }),
);
/** parents[i]: the index of scope i's parent (always smaller), or -1. */
const parents = fc.tuple(
  ...SCOPES.map((_, index) => fc.integer({ min: -1, max: index - 1 })),
);

interface Registered {
  readonly entry: Entry;
  readonly text: string;
}

function registrarOf(prompt: SystemPrompt, index: number): Registrar {
  return index < 0 ? prompt : prompt.scope(SCOPES[index]);
}

/** Registers every entry; a duplicate name in one layer is skipped. */
function register(
  prompt: SystemPrompt,
  entries: readonly Entry[],
  ran: string[],
): Registered[] {
  const registered: Registered[] = [];
  const toolLayers = new Set<string>();
  for (const [index, item] of entries.entries()) {
    const text = `${item.kind}#${index}`;
    const registrar = registrarOf(prompt, item.layer);
    try {
      if (item.kind === "section") {
        registrar.section({ name: item.name, order: item.order, text });
      } else if (item.kind === "variable") {
        registrar.variable(item.name, () => text);
      } else if (item.kind === "runtimeContext") {
        registrar.runtimeContext({ name: item.name, order: item.order, text });
      } else if (item.kind === "tool") {
        // One tool of a name per layer (two would be DUPLICATE_TOOL).
        const key = `${item.layer}:${item.name}`;
        if (toolLayers.has(key)) continue;
        toolLayers.add(key);
        const schema = { name: item.name, description: text, parameters: {} };
        registrar.tools(() => ({ schemas: [schema] }));
      } else {
        registrar.onAssemble((_assembly, _context, next) => {
          ran.push(text);
          return next();
        });
      }
      registered.push({ entry: item, text });
    } catch (error) {
      if (!/DUPLICATE/.test((error as { code?: string }).code ?? "")) {
        throw error;
      }
    }
  }
  return registered;
}

/** The layer indexes an assembly for `scope` reads, farthest first. */
function chainOf(scope: number, parentOf: readonly number[]): number[] {
  const chain = [];
  for (let at = scope; at >= 0; at = parentOf[at]) chain.unshift(at);
  return [-1, ...chain];
}

function compareByOrderThenName(
  a: { order: number; name: string },
  b: { order: number; name: string },
): number {
  return a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/** Merges the chain's layers farthest first: a nearer name replaces. */
function reference(
  registered: readonly Registered[],
  chain: readonly number[],
): { assembly: PromptAssembly; listeners: string[] } {
  const sections = new Map<
    string,
    { name: string; order: number; text: string; stability?: "agent" }
  >();
  const runtime = new Map<
    string,
    { name: string; order: number; text: string }
  >();
  const variables = new Map<string, string>();
  const tools = new Map<string, ToolSchema>();
  // SPEC 8.1: a scope layer's sections and tools default to "agent".
  const agentTools = new Set<string>();
  const listeners: string[] = [];
  sections.set("deployment:persona", {
    name: "deployment:persona",
    order: 0,
    text: "",
  });
  for (const layerIndex of chain) {
    for (const { entry: item, text } of registered) {
      if (item.layer !== layerIndex) continue;
      if (item.kind === "section") {
        sections.set(item.name, {
          name: item.name,
          order: item.order,
          text,
          ...(layerIndex >= 0 ? { stability: "agent" as const } : {}),
        });
      } else if (item.kind === "runtimeContext") {
        runtime.set(item.name, { name: item.name, order: item.order, text });
      } else if (item.kind === "variable") variables.set(item.name, text);
      else if (item.kind === "tool") {
        tools.set(item.name, {
          name: item.name,
          description: text,
          parameters: {},
        });
        if (layerIndex >= 0) agentTools.add(item.name);
        else agentTools.delete(item.name);
      }
    }
  }
  for (const { entry: item, text } of registered) {
    if (item.kind === "listener" && chain.includes(item.layer)) {
      listeners.push(text);
    }
  }
  const byName = <T extends { name: string }>(a: T, b: T) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  // SPEC 8.2: unlisted tools by stability (stable first), then name.
  const byStabilityThenName = (a: ToolSchema, b: ToolSchema) =>
    Number(agentTools.has(a.name)) - Number(agentTools.has(b.name)) ||
    byName(a, b);
  const agentNames = [...agentTools].filter((name) => tools.has(name)).sort();
  return {
    assembly: {
      sections: [...sections.values()].sort(compareByOrderThenName),
      tools: [...tools.values()].sort(byStabilityThenName),
      variables: Object.fromEntries(
        [...variables].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0),
      ),
      runtimeContext: [...runtime.values()].sort(compareByOrderThenName),
      ...(agentNames.length === 0 ? {} : {
        toolStability: Object.fromEntries(
          agentNames.map((name) => [name, "agent" as const]),
        ),
      }),
    },
    listeners,
  };
}

describe(`scope chains: properties (seed ${SEED})`, () => {
  it("an assembly equals the farthest-first merge of its chain's layers", async () => {
    await fc.assert(
      fc.asyncProperty(
        parents,
        fc.array(entry, { maxLength: 30 }),
        fc.integer({ min: -1, max: SCOPES.length - 1 }),
        async (parentOf, entries, scope) => {
          const prompt = new SystemPrompt({ includeHarnessIdentity: false });
          try {
            // Bind in a shuffled-by-index order: the result is the same.
            for (let index = SCOPES.length - 1; index >= 0; index--) {
              const parent = parentOf[index];
              if (parent >= 0) prompt.bindScope(SCOPES[index], SCOPES[parent]);
            }
            const ran: string[] = [];
            const registered = register(prompt, entries, ran);
            const context = scope < 0 ? {} : { scope: SCOPES[scope] };
            const assembly = await prompt.assemble(context);
            const expected = reference(
              registered,
              scope < 0 ? [-1] : chainOf(scope, parentOf),
            );
            assert.equal(
              JSON.stringify(assembly),
              JSON.stringify(expected.assembly),
            );
            assert.deepEqual(ran, expected.listeners);
          } finally {
            await prompt.dispose();
          }
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
