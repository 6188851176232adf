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
    let own = body.count;
    for (const index of [...body.replaced.keys()].sort((a, b) => a - b)) {
      const blocks: Block[] = [];
      read.reader.read(
        body.replaced.get(index),
        index,
        read.states[index],
        blocks,
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
    const ownRun = this.#ownRun(body, read, own);
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

  /** The blocks of this request's own items, from shared item `own` on. */
  #ownRun(body: GrowingBody, read: ItemsRead, own: number): Block[] {
    const blocks: Block[] = [];
    let state = read.states[own];
    for (let index = own; index < body.count; index++) {
      const replaced = body.replaced.has(index);
      if (!replaced && sameState(state, read.states[index])) {
        // A shared item in the same state reads as it did.
        for (let at = read.starts[index]; at < read.starts[index + 1]; at++) {
          blocks.push(read.blocks[at]);
        }
        state = read.states[index + 1];
        continue;
      }
      const item = replaced ? body.replaced.get(index) : read.items[index];
      state = read.reader.read(item, index, state, blocks);
    }
    body.extra.forEach((item, at) => {
      state = read.reader.read(item, body.count + at, state, blocks);
    });
    return blocks;
  }
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
