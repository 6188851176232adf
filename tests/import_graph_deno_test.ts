/**
 * ARCHITECTURE.md's dependency rule (issue 45): the local import graph of
 * every entry point (`deno info --json`, code and type edges alike) has no
 * cycle, and no module imports a room above its own. Rooms are ranked
 * bottom first by the ordered path patterns of `ROOMS`; every file of
 * `src/`, `adapters/` and `cli/` the graph reaches must match one.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);

/**
 * The rooms, bottom first: a module may import its own room or one below.
 * Each `room` is the name ARCHITECTURE.md's "Rooms" list gives it, in the
 * same order. A vendor folder of `adapters/` is a room by its place, so a
 * new form's folder needs no new line here.
 */
export const ROOMS: readonly { room: string; files: RegExp }[] = [
  {
    room: "src/errors.ts, src/types.ts, src/system_prompt_config.ts",
    files: /^src\/(errors|types|system_prompt_config)\.ts$/,
  },
  { room: "src/shared", files: /^src\/shared\// },
  { room: "src/render", files: /^src\/render\// },
  {
    room: "src/budget, src/diff, src/lint",
    files: /^src\/(budget|diff|lint)\//,
  },
  { room: "src/change_types.ts", files: /^src\/change_types\.ts$/ },
  { room: "src/kinds", files: /^src\/kinds\// },
  { room: "src/store, src/lifetime", files: /^src\/(store|lifetime)\// },
  { room: "src/assemble", files: /^src\/assemble\// },
  { room: "src/explain, src/registrar", files: /^src\/(explain|registrar)\// },
  { room: "src/cache/simulator", files: /^src\/cache\/simulator\// },
  {
    room: "src/cache/report, src/cache/contract",
    files: /^src\/cache\/(report|contract)\//,
  },
  { room: "src/conversation", files: /^src\/conversation\// },
  { room: "src/system_prompt.ts", files: /^src\/system_prompt\.ts$/ },
  { room: "mod.ts", files: /^mod\.ts$/ },
  { room: "adapters/_kit", files: /^adapters\/_kit\// },
  {
    room: "adapters/<vendor>",
    files:
      /^adapters\/(?!_kit\/|cache\/|otel\/|mcp\/)[a-z_]+\/(?!mod\.ts$|conversation\.ts$)[a-z_]+\.ts$/,
  },
  {
    room: "adapters/<vendor>/<api>",
    files:
      /^adapters\/[a-z_]+\/[a-z_]+\/(?!mod\.ts$|conversation\.ts$)[a-z_]+\.ts$/,
  },
  { room: "adapters/forms.ts", files: /^adapters\/forms\.ts$/ },
  {
    room: "adapters entries",
    files:
      /^adapters\/(([a-z_]+\/)+(mod|conversation)\.ts|(cache|otel|mcp)\/[a-z_]+\.ts)$/,
  },
  { room: "cli", files: /^cli\/(?!run\.ts$|main\.ts$)[a-z_]+\.ts$/ },
  { room: "cli/inspect", files: /^cli\/inspect\/[a-z_]+\.ts$/ },
  { room: "cli/run.ts, cli/main.ts", files: /^cli\/(run|main)\.ts$/ },
];

/**
 * The rooms ARCHITECTURE.md's "Rooms" section lists, in order: each item
 * starts with the room's name in bold.
 */
async function architectureRooms(): Promise<string[]> {
  const text = await Deno.readTextFile(new URL("ARCHITECTURE.md", ROOT));
  const section = text.split(/^## /m).find((part) => part.startsWith("Rooms"));
  assert.ok(section !== undefined, "ARCHITECTURE.md has a Rooms section");
  return [...section.matchAll(/^\d+\. \*\*(.+?)\*\*/gm)].map((match) =>
    match[1].replaceAll("`", "")
  );
}

/** The entry points: every export of deno.json and the command. */
async function entries(): Promise<string[]> {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("deno.json", ROOT)),
  ) as { exports: Record<string, string> };
  return [...new Set([...Object.values(config.exports), "./cli/main.ts"])];
}

/** The `./otel` entry, as deno.json exports it. */
async function otelEntry(): Promise<string> {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("deno.json", ROOT)),
  ) as { exports: Record<string, string> };
  return config.exports["./otel"];
}

/** A local module's path from the root, or undefined for any other. */
function local(specifier: string): string | undefined {
  return specifier.startsWith(ROOT.href)
    ? specifier.slice(ROOT.href.length)
    : undefined;
}

interface InfoModule {
  readonly specifier: string;
  readonly dependencies?: readonly {
    readonly code?: { readonly specifier: string };
    readonly type?: { readonly specifier: string };
  }[];
}

/**
 * The local import graph of `entry` (module → the modules it imports, code
 * and type edges), and the npm packages its code loads at run time (code
 * edges only, from the entry).
 */
export async function importGraph(
  entry: string,
): Promise<{ edges: Map<string, Set<string>>; npm: string[] }> {
  const { stdout, stderr, success } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(success, new TextDecoder().decode(stderr));
  const info = JSON.parse(new TextDecoder().decode(stdout)) as {
    roots: string[];
    modules: InfoModule[];
  };
  const edges = new Map<string, Set<string>>();
  const code = new Map<string, string[]>();
  for (const module of info.modules) {
    const from = local(module.specifier);
    code.set(
      module.specifier,
      (module.dependencies ?? []).flatMap((dependency) =>
        dependency.code === undefined ? [] : [dependency.code.specifier]
      ),
    );
    if (from === undefined) continue;
    const to = edges.get(from) ?? new Set<string>();
    edges.set(from, to);
    for (const dependency of module.dependencies ?? []) {
      for (const target of [dependency.code, dependency.type]) {
        const path = target === undefined ? undefined : local(target.specifier);
        if (path !== undefined && path !== from) to.add(path);
      }
    }
  }
  const npm: string[] = [];
  const seen = new Set<string>();
  const visit = (specifier: string) => {
    if (seen.has(specifier)) return;
    seen.add(specifier);
    if (specifier.startsWith("npm:")) npm.push(specifier);
    for (const next of code.get(specifier) ?? []) visit(next);
  };
  for (const root of info.roots) visit(root);
  return { edges, npm };
}

/** The graph of every entry, merged. */
async function wholeGraph(): Promise<Map<string, Set<string>>> {
  const merged = new Map<string, Set<string>>();
  for (const entry of await entries()) {
    for (const [from, to] of (await importGraph(entry)).edges) {
      const set = merged.get(from) ?? new Set<string>();
      for (const path of to) set.add(path);
      merged.set(from, set);
    }
  }
  return merged;
}

/** The strongly connected components of more than one module (Tarjan). */
export function cycles(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of [...edges.keys()].sort()) {
    if (!index.has(node)) visit(node);
  }
  return found;
}

/** The rank of a file's room, or -1 when no room holds it. */
export function rankOf(path: string): number {
  return ROOMS.findIndex((room) => room.files.test(path));
}

/** Whether the rule covers a file (the examples and tests are outside). */
function covered(path: string): boolean {
  return /^(mod\.ts$|src\/|adapters\/|cli\/)/.test(path);
}

/**
 * Entries that load the form table, which must load without the optional
 * peers (a form's `form.ts` imports none at run time).
 */
const LIGHT_ENTRIES = ["./adapters/forms.ts", "./adapters/cache/mod.ts"];

/** The optional peers the light entries never load. */
const PEERS = /^npm:\/?(ai|openai|@anthropic-ai\/sdk)@/;

describe("import graph (ARCHITECTURE.md)", () => {
  it("loads no optional peer with the form table", async () => {
    for (const entry of [...LIGHT_ENTRIES, await otelEntry()]) {
      const { npm } = await importGraph(entry);
      assert.deepEqual(
        npm.filter((specifier) => PEERS.test(specifier)),
        [],
        `${entry} loads an optional peer`,
      );
    }
  });

  it("has no cycle, type edges included", async () => {
    const found = cycles(await wholeGraph()).map((cycle) => cycle.join(" "));
    assert.deepEqual(found, [], "import cycles");
  });

  it("lists in ARCHITECTURE.md the rooms it checks, in their order", async () => {
    assert.deepEqual(await architectureRooms(), ROOMS.map((room) => room.room));
  });

  it("imports no room above its own, and every file is in a room", async () => {
    const graph = await wholeGraph();
    const unplaced = [...graph.keys()].filter((path) =>
      covered(path) && rankOf(path) < 0
    );
    assert.deepEqual(unplaced, [], "files no room of ROOMS holds");
    const upward: string[] = [];
    for (const [from, to] of graph) {
      if (!covered(from)) continue;
      for (const path of to) {
        if (covered(path) && rankOf(path) > rankOf(from)) {
          upward.push(`${from} -> ${path}`);
        }
      }
    }
    assert.deepEqual(
      upward.sort().map((edge) => {
        const [from, to] = edge.split(" -> ");
        return `upward import: ${from} (${ROOMS[rankOf(from)].room}) ` +
          `imports ${to} (${ROOMS[rankOf(to)].room})`;
      }),
      [],
    );
  });
});
