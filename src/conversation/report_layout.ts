/**
 * How the report lays a recording's steps out as growing bodies (issue 49,
 * SPEC 9.3): the history the steps share, grown by each step's tail, with
 * the step's marks put back on copies of the items that carry them. A form
 * whose body is its history as it is uses `ItemsLayout`; another (the AI
 * SDK's, laid out as the body its provider sends) brings its own. Pure.
 *
 * @module
 */

import type { GrowingBody } from "../cache/report/growing.ts";
import type { MarkSites } from "./marks.ts";
import type { RecordingMark } from "./recording.ts";

/** How a form lays its recorded steps out: the history grown step by step. */
export interface RecordLayout {
  /** A step's body: its head, its tail joining the history, its marks. */
  request(
    head: Record<string, unknown>,
    tail: readonly unknown[],
    marks: readonly RecordingMark[],
  ): GrowingBody;
  /** The answer's items join the history. */
  answered(items: readonly unknown[]): void;
}

/**
 * `item` with `mark` on its part `block`, as the form sets a mark (the
 * item itself when it has no such part).
 */
export function markedItem(
  item: unknown,
  block: number,
  mark: unknown,
  sites: MarkSites<unknown>,
): unknown {
  if (typeof item !== "object" || item === null || Array.isArray(item)) {
    return item;
  }
  const site = sites.site(item);
  if (typeof site !== "object") return item;
  const part = site.parts[block];
  if (typeof part !== "object" || part === null || Array.isArray(part)) {
    return item;
  }
  return { ...item, [site.field]: sites.setMark(site.parts, block, mark) };
}

/**
 * A form whose body carries the history as it is, in field `name`
 * (`messages`, `input`), after the head's `leading` item when it has one
 * (an OpenAI system message): the rest of the head is the body's fields.
 */
export class ItemsLayout implements RecordLayout {
  readonly #name: string;
  readonly #leading: string | undefined;
  readonly #sites: MarkSites<unknown>;
  #items: unknown[] = [];
  #head: Record<string, unknown> | undefined;
  #fields: Record<string, unknown> = {};
  #first: string | undefined;

  constructor(
    { name, leading, sites }: {
      readonly name: string;
      readonly leading?: string;
      readonly sites: MarkSites<unknown>;
    },
  ) {
    this.#name = name;
    this.#leading = leading;
    this.#sites = sites;
  }

  request(
    head: Record<string, unknown>,
    tail: readonly unknown[],
    marks: readonly RecordingMark[],
  ): GrowingBody {
    if (head !== this.#head) this.#newHead(head);
    for (const item of tail) this.#items.push(item);
    const replaced = new Map<number, unknown>();
    for (const { message, block, mark } of marks) {
      const item = replaced.has(message)
        ? replaced.get(message)
        : this.#items[message];
      const marked = markedItem(item, block, mark, this.#sites);
      if (marked !== item) replaced.set(message, marked);
    }
    return {
      fields: this.#fields,
      name: this.#name,
      items: this.#items,
      count: this.#items.length,
      replaced,
      extra: [],
    };
  }

  answered(items: readonly unknown[]): void {
    for (const item of items) this.#items.push(item);
  }

  #newHead(head: Record<string, unknown>): void {
    this.#head = head;
    const leading = this.#leading;
    if (leading === undefined) {
      this.#fields = head;
      return;
    }
    const { [leading]: first, ...rest } = head;
    this.#fields = rest;
    // The leading item is the first: a new one takes the old one's place,
    // or goes before the items a fresh layout was given (`answered`).
    const json = JSON.stringify(first) ?? "undefined";
    if (json === this.#first) return;
    const had = this.#first !== undefined;
    this.#first = json;
    this.#items = [first, ...had ? this.#items.slice(1) : this.#items];
  }
}
