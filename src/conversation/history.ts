/**
 * The committed history (SPEC 10.4): an append-only store, so that a step
 * costs its new items. Each committed state holds a `History`, a length
 * over one array that the conversation's later states share: appending to
 * the latest state pushes onto that array (O(new items)) and gives a new
 * state; an older state stays what it was (it reads only its own length),
 * and appending to it copies its items first. The array is never handed
 * out: a body gets its own list (`sendList`), `messages` a frozen copy made
 * once per state (`snapshot`).
 *
 * @module
 */

/** An item put in place of the history's (or the tail's) at `at`. */
export interface Placement<M> {
  /** The item's index in the history followed by the tail. */
  readonly at: number;
  readonly item: M;
}

/**
 * The history as a form or a check reads it: by index, or walked (which
 * costs the whole history: a step should read only its end).
 */
export interface ReadonlyHistory<M> extends Iterable<M> {
  readonly length: number;
  /** The item at `index`; a negative index counts from the end. */
  at(index: number): M | undefined;
  /** The items from `start` to `end` (as `Array.prototype.slice`), a copy. */
  slice(start?: number, end?: number): M[];
}

/**
 * What each store's items were read for (`History#holds`), per test: how
 * many items were read, and the first that passed (-1: none of them).
 */
const READ = new WeakMap<
  readonly unknown[],
  Map<unknown, { count: number; first: number }>
>();

/** The committed history of one state: `length` items of a shared store. */
export class History<M> implements ReadonlyHistory<M> {
  readonly #items: M[];
  /** The items committed in this state. */
  readonly length: number;
  #snapshot: readonly M[] | undefined;

  private constructor(items: M[], length: number) {
    this.#items = items;
    this.length = length;
  }

  /** A history without items (each conversation's first store is its own). */
  static empty<M>(): History<M> {
    return new History<M>([], 0);
  }

  /** The item at `index`; a negative index counts from the end. */
  at(index: number): M | undefined {
    const at = index < 0 ? index + this.length : index;
    return at >= 0 && at < this.length ? this.#items[at] : undefined;
  }

  /** The items from `start` to `end` (as `Array.prototype.slice`), a copy. */
  slice(start?: number, end?: number): M[] {
    const length = this.length;
    // Relative to this state's length, not the store's.
    const within = (index: number) =>
      index < 0 ? Math.max(0, index + length) : Math.min(index, length);
    return this.#items.slice(
      within(start ?? 0),
      end === undefined ? length : within(end),
    );
  }

  /**
   * This history with `groups`' items after it, in order: O(their count)
   * from the latest state; an older state's items are copied first. The
   * caller freezes what it appends.
   */
  append(...groups: readonly (readonly M[])[]): History<M> {
    let items = this.#items;
    // The empty state's array stays empty (a new conversation must not
    // keep another's items), and an older state must not write over the
    // items a later one committed.
    if (this.length === 0) items = [];
    else if (items.length !== this.length) items = items.slice(0, this.length);
    for (const group of groups) {
      for (let index = 0; index < group.length; index++) {
        items.push(group[index]);
      }
    }
    return new History(items, items.length);
  }

  /**
   * A body's list: `leading`, the history, then `tail`, each placement's
   * item in place of the one at its index (counted from the history's
   * start). The one copy of the history a request makes.
   */
  sendList(
    leading: readonly unknown[],
    tail: readonly M[],
    placed: readonly Placement<M>[],
  ): unknown[] {
    const items = this.#items;
    const start = leading.length;
    const length = this.length;
    if (start === 0 && items.length === length) {
      // The latest state without leading items: the tail pushed onto the
      // store for one `slice()` (the fastest copy: half the loop's time),
      // then taken off again.
      for (let index = 0; index < tail.length; index++) items.push(tail[index]);
      let list: unknown[];
      try {
        list = items.slice();
      } finally {
        items.length = length;
      }
      for (const { at, item } of placed) list[at] = item;
      return list;
    }
    // A loop into an array of the final size: faster than a spread or
    // `concat` with an item before the history (issue 49's measures).
    const list = new Array<unknown>(start + length + tail.length);
    for (let index = 0; index < start; index++) list[index] = leading[index];
    for (let index = 0; index < length; index++) {
      list[start + index] = items[index];
    }
    for (let index = 0; index < tail.length; index++) {
      list[start + length + index] = tail[index];
    }
    for (const { at, item } of placed) list[start + at] = item;
    return list;
  }

  /**
   * Whether an item passes `test` (a module-level function, compared by
   * identity): the store's items are read once per test over the whole
   * conversation, so a step reads its new items only. A store's first
   * `length` items never change (an older state appends to a copy).
   */
  holds(test: (item: M) => boolean): boolean {
    const items = this.#items;
    let tests = READ.get(items);
    if (tests === undefined) READ.set(items, tests = new Map());
    let read = tests.get(test);
    if (read === undefined) tests.set(test, read = { count: 0, first: -1 });
    for (; read.first === -1 && read.count < this.length; read.count++) {
      if (test(items[read.count])) read.first = read.count;
    }
    return read.first !== -1 && read.first < this.length;
  }

  /** The items as a frozen array, copied once per state. */
  snapshot(): readonly M[] {
    this.#snapshot ??= Object.freeze(this.#items.slice(0, this.length));
    return this.#snapshot;
  }

  *[Symbol.iterator](): Iterator<M> {
    for (let index = 0; index < this.length; index++) {
      yield this.#items[index];
    }
  }
}
