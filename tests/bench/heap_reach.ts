/**
 * What an object holds, read from a V8 heap snapshot (`node:inspector`,
 * on Deno and Node): the bytes reachable from it through its data (no
 * functions, code, maps or prototypes), and how many of them go when
 * some edges are cut (scopes, which a class's instance reaches through its
 * brand, are not followed). A difference of two cuts is what only those edges
 * hold; a difference of two snapshots of the same object, what it grew
 * by. For `conversation_memory.ts`.
 */
import inspector from "node:inspector";

/** A parsed heap snapshot (the flat arrays V8 writes). */
export interface HeapGraph {
  readonly nodes: number[];
  readonly edges: number[];
  readonly strings: string[];
  readonly nodeFields: number;
  readonly edgeFields: number;
  readonly nodeTypes: string[];
  readonly edgeTypes: string[];
  /** Each node's first edge (index into `edges`), by node index / nodeFields. */
  readonly firstEdge: Uint32Array;
}

/** A snapshot of this process's heap (it collects garbage first). */
export async function heapGraph(): Promise<HeapGraph> {
  const session = new inspector.Session();
  session.connect();
  const chunks: string[] = [];
  session.on(
    "HeapProfiler.addHeapSnapshotChunk",
    (message: { params: { chunk: string } }) =>
      chunks.push(message.params.chunk),
  );
  // Deno does not count the inspector's answer as pending work: a timer
  // keeps the process waiting for it.
  const alive = setInterval(() => {}, 1_000);
  try {
    await new Promise<void>((resolve, reject) =>
      session.post(
        "HeapProfiler.takeHeapSnapshot",
        {},
        (error: Error | null) => error ? reject(error) : resolve(),
      )
    );
  } finally {
    clearInterval(alive);
    session.disconnect();
  }
  const snapshot = JSON.parse(chunks.join(""));
  chunks.length = 0;
  const meta = snapshot.snapshot.meta;
  const nodeFields = meta.node_fields.length;
  const edgeFields = meta.edge_fields.length;
  const nodes: number[] = snapshot.nodes;
  const firstEdge = new Uint32Array(nodes.length / nodeFields + 1);
  let edge = 0;
  for (let node = 0; node < nodes.length / nodeFields; node++) {
    firstEdge[node] = edge;
    edge += nodes[node * nodeFields + 4] * edgeFields;
  }
  firstEdge[nodes.length / nodeFields] = edge;
  return {
    nodes,
    edges: snapshot.edges,
    strings: snapshot.strings,
    nodeFields,
    edgeFields,
    nodeTypes: meta.node_types[0],
    edgeTypes: meta.edge_types[0],
    firstEdge,
  };
}

/**
 * The newest object of a class, by its constructor's name (the highest
 * id: an older one may not be collected yet, its last uses held by the
 * engine's caches).
 */
export function objectNamed(graph: HeapGraph, name: string): number {
  const { nodes, nodeFields, nodeTypes, strings } = graph;
  let found = -1;
  for (let at = 0; at < nodes.length; at += nodeFields) {
    if (
      nodeTypes[nodes[at]] === "object" && strings[nodes[at + 1]] === name &&
      (found === -1 || nodes[at + 2] > nodes[found * nodeFields + 2])
    ) found = at / nodeFields;
  }
  if (found === -1) throw new Error(`no ${name} object in the heap`);
  return found;
}

/** What never counts as an object's data: behaviour and engine structure. */
const SKIPPED_NODES = new Set(["closure", "code", "hidden", "object shape"]);
const SKIPPED_EDGES = new Set(["weak", "shortcut"]);
const SKIPPED_NAMES = new Set(["map", "__proto__", "constructor"]);

/** Bytes reachable from `root`, by node type, not through an edge named in `cut`. */
export function reachable(
  graph: HeapGraph,
  root: number,
  cut: ReadonlySet<string> = new Set(),
): { total: number; byType: Record<string, number> } {
  const { nodes, edges, strings, nodeFields, edgeFields, firstEdge } = graph;
  const seen = new Uint8Array(nodes.length / nodeFields);
  const pending = [root];
  seen[root] = 1;
  const byType: Record<string, number> = {};
  let total = 0;
  while (pending.length > 0) {
    const node = pending.pop()!;
    const type = graph.nodeTypes[nodes[node * nodeFields]];
    const size = nodes[node * nodeFields + 3];
    total += size;
    byType[type] = (byType[type] ?? 0) + size;
    // An object's out-of-object properties are also its named edges: the
    // store's own edges would reach what a cut edge names another way.
    if (strings[nodes[node * nodeFields + 1]] === "(object properties)") {
      continue;
    }
    for (let at = firstEdge[node]; at < firstEdge[node + 1]; at += edgeFields) {
      const edgeType = graph.edgeTypes[edges[at]];
      if (SKIPPED_EDGES.has(edgeType)) continue;
      const named = edgeType !== "element" && edgeType !== "hidden";
      const name = named ? strings[edges[at + 1]] : "";
      if (named && (SKIPPED_NAMES.has(name) || cut.has(name))) continue;
      const to = edges[at + 2] / nodeFields;
      if (seen[to] === 1) continue;
      if (SKIPPED_NODES.has(graph.nodeTypes[nodes[to * nodeFields]])) continue;
      // A scope's variables are a module's or a closure's, not the object's.
      if (strings[nodes[to * nodeFields + 1]].startsWith("system / ")) continue;
      seen[to] = 1;
      pending.push(to);
    }
  }
  return { total, byType };
}
