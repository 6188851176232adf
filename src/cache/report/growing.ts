/**
 * A session's requests read as they grow: each body is the one before
 * and a few more items, so reading every body whole costs the history
 * once per request, quadratic in the session (a conversation's report of
 * 10,000 steps read 10,000 histories). Here each item is read once: the
 * items a session's requests share are read into one run of blocks,
 * numbered and counted once, and a request is that run up to its length
 * plus what it alone sends (an item with a mark added, the items after
 * it). The views it gives read as the rules' `readBody` and `prepare` read
 * the whole body: the same blocks, prefix numbers and tokens.
 *
 * @module
 */

import type { Block, Marker, ParsedBody } from "../simulator/blocks.ts";
import type {
  ItemReader,
  ItemState,
  ProviderRules,
} from "../simulator/rules.ts";
import {
  type PrefixIndex,
  Prepared,
  ROOT,
  type Run,
} from "../simulator/prefixes.ts";
import type { ReportedRequest } from "./types.ts";
import type { CountTokens } from "../simulator/types.ts";

/**
 * One request of a session whose bodies grow (internal): its body as the
 * fields around the items, and the items as the session's shared ones
 * with this request's own.
 */
export interface GrowingBody {
  /**
   * The body without its items (model, tools, system, options): one
   * object for as long as it does not change.
   */
  readonly fields: Readonly<Record<string, unknown>>;
  /** The field the items go in: `messages`, `input` (Responses), ... */
  readonly name: string;
  /**
   * The session's items, shared by its requests and only ever appended
   * to; this request sends the first `count`.
   */
  readonly items: readonly unknown[];
  readonly count: number;
  /** Items sent in place of shared ones (a mark added), by index below `count`. */
  readonly replaced: ReadonlyMap<number, unknown>;
  /** The items after the first `count`: this request's own. */
  readonly extra: readonly unknown[];
}

/** A reported request whose body is a {@linkcode GrowingBody} (internal). */
export interface GrowingRequest extends Omit<ReportedRequest, "body"> {
  readonly body: GrowingBody;
}

/** The body a {@linkcode GrowingBody} stands for, whole. */
export function wholeBody(body: GrowingBody): Record<string, unknown> {
  const items = body.items.slice(0, body.count);
  for (const [index, item] of body.replaced) items[index] = item;
  return { ...body.fields, [body.name]: [...items, ...body.extra] };
}

/** The fields around the items, read and numbered once. */
interface FieldsRead {
  readonly fields: object;
  readonly name: string;
  readonly parsed: ParsedBody;
  readonly run: Run;
  readonly reader: ItemReader;
  readonly state: ItemState;
}

/** The shared items read (for one list and one way of reading). */
interface ItemsRead {
  readonly items: readonly unknown[];
  readonly reader: ItemReader;
  readonly blocks: Block[];
  /** Item `k`'s first block; one more entry, the end, after the last read. */
  readonly starts: number[];
  /** The state item `k` is read in; one more, the state after the last. */
  readonly states: ItemState[];
  /** The last request's replaced items, read, by index. */
  replaced: Map<number, ReplacedRead>;
}

/** An item sent in place of a shared one, read in state `from`. */
interface ReplacedRead {
  readonly item: unknown;
  readonly from: ItemState;
  readonly blocks: readonly Block[];
  /** The state the next item is read in. */
  readonly next: ItemState;
}

/** The shared items' blocks numbered after the fields' last block. */
interface Numbered {
  readonly read: ItemsRead;
  readonly parent: number;
  readonly run: Run;
  /** Where `PrefixIndex.extend` appends: the run's nodes and cumulative. */
  readonly counted: { nodes: number[]; cumulative: number[]; total: number };
}

/**
 * Reads a session's growing bodies in order (`read` each once), numbered
 * by `index` and counted with `count` (memoised) as the simulator does.
 */
export class GrowingReader {
  readonly #rules: ProviderRules;
  readonly #index: PrefixIndex;
  readonly #count: CountTokens;
  #fields: FieldsRead | undefined;
  #items: ItemsRead | undefined;
  #numbered: Numbered | undefined;

  constructor(rules: ProviderRules, index: PrefixIndex, count: CountTokens) {
    this.#rules = rules;
    this.#index = index;
    this.#count = count;
  }

  /**
   * Request `index` at `time`.
   *
   * @throws {SystemPromptError} `INVALID_CONFIG` for a body of another
   * shape, as the rules' `readBody` throws for it whole
   */
  read(
    body: GrowingBody,
    request: { index: number; time: number },
  ): Prepared {
    const fields = this.#fieldsOf(body);
    const numbered = this.#numberedOf(body, fields);
    const { read } = numbered;
    this.#readTo(read, body.count);
    // The shared items this request sends as they are read: up to the
    // first one it replaces with other blocks (not only other marks).
    const overrides = new Map<number, Marker | undefined>();
    const before = fields.run.blocks.length;
    const replaced = new Map<number, ReplacedRead>();
    let own = body.count;
    for (const index of [...body.replaced.keys()].sort((a, b) => a - b)) {
      const { blocks } = replacedRead(
        read,
        { item: body.replaced.get(index), index, from: read.states[index] },
        replaced,
      );
      const from = read.starts[index];
      if (!sameBlocks(blocks, read.blocks, from, read.starts[index + 1])) {
        own = index;
        break;
      }
      blocks.forEach((block, at) => {
        overrides.set(before + from + at, block.marker);
      });
    }
    const shared = read.starts[own];
    this.#numberTo(numbered, shared);
    const ownRun = this.#ownRun(body, read, { own, replaced });
    read.replaced = replaced;
    const parent = shared > 0
      ? numbered.run.nodes[shared - 1]
      : fields.run.nodes.at(-1) ?? ROOT;
    const counted = {
      nodes: [] as number[],
      cumulative: [] as number[],
      total: 0,
    };
    this.#index.extend(
      parent,
      {
        blocks: ownRun,
        from: 0,
        to: ownRun.length,
      },
      this.#count,
      counted,
    );
    return new Prepared(
      {
        ...request,
        fields: body.fields,
        explicitMode: fields.parsed.explicitMode,
        ...(fields.parsed.automaticTtl === undefined
          ? {}
          : { automaticTtl: fields.parsed.automaticTtl }),
      },
      [
        { run: fields.run, length: before },
        { run: numbered.run, length: shared },
        { run: { blocks: ownRun, ...counted }, length: ownRun.length },
      ],
      overrides,
    );
  }

  /** The fields read and numbered (again only when they changed). */
  #fieldsOf(body: GrowingBody): FieldsRead {
    const known = this.#fields;
    if (known?.fields === body.fields && known.name === body.name) return known;
    const parsed = this.#rules.readBody({ ...body.fields, [body.name]: [] });
    const run = { nodes: [] as number[], cumulative: [] as number[], total: 0 };
    const { blocks } = parsed;
    this.#index.extend(
      ROOT,
      { blocks, from: 0, to: blocks.length },
      this.#count,
      run,
    );
    const fields: FieldsRead = {
      fields: body.fields,
      name: body.name,
      parsed,
      run: { blocks, nodes: run.nodes, cumulative: run.cumulative },
      reader: this.#rules.readItems!(body.fields, body.name),
      state: {
        leading: true,
        systemIndex: blocks.filter((block) => block.part === "system").length,
      },
    };
    this.#fields = fields;
    return fields;
  }

  /**
   * The shared items read and numbered after the fields: read again only
   * for another list or another way of reading, numbered again only when
   * the fields' blocks changed.
   */
  #numberedOf(body: GrowingBody, fields: FieldsRead): Numbered {
    let read = this.#items;
    if (
      read === undefined || read.items !== body.items ||
      read.reader.key !== fields.reader.key ||
      read.states[0].systemIndex !== fields.state.systemIndex
    ) {
      read = {
        items: body.items,
        reader: fields.reader,
        blocks: [],
        starts: [0],
        states: [fields.state],
        replaced: new Map(),
      };
      this.#items = read;
    }
    const parent = fields.run.nodes.at(-1) ?? ROOT;
    let numbered = this.#numbered;
    if (numbered?.read !== read || numbered.parent !== parent) {
      const counted = { nodes: [], cumulative: [], total: 0 };
      numbered = {
        read,
        parent,
        run: {
          blocks: read.blocks,
          nodes: counted.nodes,
          cumulative: counted.cumulative,
        },
        counted,
      };
      this.#numbered = numbered;
    }
    return numbered;
  }

  /** Reads the shared items up to `count`. */
  #readTo(read: ItemsRead, count: number): void {
    const { items, reader, blocks, starts, states } = read;
    for (let index = starts.length - 1; index < count; index++) {
      states.push(reader.read(items[index], index, states[index], blocks));
      starts.push(blocks.length);
    }
  }

  /**
   * Numbers the shared blocks up to `length`: only those a request sends,
   * since a prefix numbered is a prefix sent (`PrefixIndex`).
   */
  #numberTo(numbered: Numbered, length: number): void {
    const { counted } = numbered;
    const from = counted.nodes.length;
    if (from >= length) return;
    this.#index.extend(
      from === 0 ? numbered.parent : counted.nodes[from - 1],
      { blocks: numbered.read.blocks, from, to: length },
      this.#count,
      counted,
    );
  }

  /**
   * The blocks of this request's own items, from shared item `own` on
   * (`replaced`: this request's replaced items read so far, added to).
   */
  #ownRun(
    body: GrowingBody,
    read: ItemsRead,
    { own, replaced }: { own: number; replaced: Map<number, ReplacedRead> },
  ): Block[] {
    const blocks: Block[] = [];
    let state = read.states[own];
    for (let index = own; index < body.count; index++) {
      if (body.replaced.has(index)) {
        const item = body.replaced.get(index);
        const done = replacedRead(read, { item, index, from: state }, replaced);
        for (const block of done.blocks) blocks.push(block);
        state = done.next;
        continue;
      }
      if (sameState(state, read.states[index])) {
        // A shared item in the same state reads as it did.
        for (let at = read.starts[index]; at < read.starts[index + 1]; at++) {
          blocks.push(read.blocks[at]);
        }
        state = read.states[index + 1];
        continue;
      }
      state = read.reader.read(read.items[index], index, state, blocks);
    }
    body.extra.forEach((item, at) => {
      state = read.reader.read(item, body.count + at, state, blocks);
    });
    return blocks;
  }
}

/**
 * Replaced item `index` read in state `from`, kept in `into`: as this
 * request read it already, or as the last request read the same value
 * (a mark stays on an item for two requests: at the end, then as the
 * previous mark), or read now. Its blocks read again would be new strings
 * of the item's JSON, each hashed again where the simulator looks it up.
 */
function replacedRead(
  read: ItemsRead,
  { item, index, from }: { item: unknown; index: number; from: ItemState },
  into: Map<number, ReplacedRead>,
): ReplacedRead {
  for (const known of [into.get(index), read.replaced.get(index)]) {
    if (
      known !== undefined && sameState(known.from, from) &&
      sameData(known.item, item, 0)
    ) {
      into.set(index, known);
      return known;
    }
  }
  const blocks: Block[] = [];
  const next = read.reader.read(item, index, from, blocks);
  const done = { item, from, blocks, next };
  into.set(index, done);
  return done;
}

/** How deep {@linkcode sameData} compares before it answers no. */
const DEEPEST_COMPARED = 32;

/**
 * Whether two values are the same data, read as a reader reads them: the
 * same primitives, arrays and plain objects with the same keys in the
 * same order (a copy with one part replaced shares the rest, compared at
 * once). Anything else only when it is the same object.
 */
function sameData(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return true;
  if (
    typeof a !== "object" || typeof b !== "object" || a === null ||
    b === null || depth > DEEPEST_COMPARED
  ) {
    return false;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let at = 0; at < a.length; at++) {
      if (!sameData(a[at], b[at], depth + 1)) return false;
    }
    return true;
  }
  if (Array.isArray(b) || !isPlain(a) || !isPlain(b)) return false;
  const keys = Object.keys(a);
  const others = Object.keys(b);
  if (keys.length !== others.length) return false;
  for (let at = 0; at < keys.length; at++) {
    const key = keys[at];
    if (key !== others[at]) return false;
    if (
      !sameData(
        (a as Record<string, unknown>)[key],
        (b as Record<string, unknown>)[key],
        depth + 1,
      )
    ) {
      return false;
    }
  }
  return true;
}

function isPlain(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function sameState(a: ItemState, b: ItemState): boolean {
  return a.leading === b.leading && a.systemIndex === b.systemIndex;
}

/** Whether `blocks` are `shared[from..to)` but for their marks. */
function sameBlocks(
  blocks: readonly Block[],
  shared: readonly Block[],
  from: number,
  to: number,
): boolean {
  if (blocks.length !== to - from) return false;
  return blocks.every((block, at) => {
    const other = shared[from + at];
    return block.id === other.id && block.part === other.part &&
      block.key === other.key && block.text === other.text;
  });
}
