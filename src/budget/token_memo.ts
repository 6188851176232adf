/**
 * A {@linkcode TokenMemo} remembers the count of each distinct text, so a
 * counter is called once per text while the text is unchanged: a registry
 * keeps one memo per counter, and an agent loop whose prompt barely changes
 * pays for a budget with lookups only. It remembers three things, each in
 * bounded generations: texts (the counter's answers), sections by their
 * values (what a section text rendered to, with the values it read) and tool
 * lists (their JSON, and each tool's of the last one). It changes no result.
 *
 * @module
 */

import type { AssembledSection, PromptAssembly, ToolSchema } from "../types.ts";
import { TextMap } from "../shared/text_map.ts";
import { countText, type CountTokens } from "./count_text.ts";
import {
  keepJson,
  type KeptJson,
  writesSameJsonList,
} from "../shared/same_json.ts";

/** The bounds of a {@linkcode TokenMemo}. */
export interface TokenMemoOptions {
  /**
   * The code units of text one generation holds (default 4 Mi): the memo
   * holds at most two generations.
   */
  maxChars?: number;
  /** The texts one generation holds (default 16,384). */
  maxEntries?: number;
}

const MAX_CHARS = 4 * 1024 * 1024;
const MAX_ENTRIES = 16_384;

/**
 * A map in two generations: entries set or used since the last turnover,
 * and the ones before; an entry found only in the older one moves to the
 * newer. When the newer one is full, the older one is dropped: entries a
 * prompt uses at every step are kept, one unused for a whole generation is
 * forgotten. Bounded at twice a generation's size, O(1) per operation.
 */
class Generations<V> {
  readonly #maxChars: number;
  readonly #maxEntries: number;
  // A TextMap: V8 hashes a long string by its length alone.
  #young = new TextMap<V>();
  #old = new TextMap<V>();
  #youngChars = 0;

  constructor(maxChars: number, maxEntries: number) {
    this.#maxChars = maxChars;
    this.#maxEntries = maxEntries;
  }

  get(key: string): V | undefined {
    const known = this.#young.get(key);
    if (known !== undefined) return known;
    const old = this.#old.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  set(key: string, value: V): void {
    if (
      this.#young.size >= this.#maxEntries ||
      this.#youngChars + key.length > this.#maxChars
    ) {
      this.#old = this.#young;
      this.#young = new TextMap();
      this.#youngChars = 0;
    }
    // A key larger than a generation is not kept.
    if (key.length > this.#maxChars) return;
    this.#young.set(key, value);
    this.#youngChars += key.length;
  }

  stats(): { entries: number; chars: number } {
    let chars = this.#youngChars;
    for (const key of this.#old.keys()) chars += key.length;
    return { entries: this.#young.size + this.#old.size, chars };
  }
}

/** The last tool list counted, and each tool's JSON once it came twice. */
interface LastTools {
  readonly json: string;
  readonly tokens: readonly number[];
  kept: readonly KeptJson[] | undefined;
}

/**
 * What a section text rendered to, last time, with the values it read: the
 * same values give the same rendered text, so its tokens are known without
 * rendering it again.
 */
export interface SectionEntry {
  readonly names: readonly string[];
  readonly values: readonly string[];
  readonly tokens: number;
  readonly empty: boolean;
  /** The count (see `TokenMemo.begin`) that last found its values current. */
  checkedIn: number;
}

/** The section texts of the last count and their entries, by index. */
export interface LastCount {
  /** The last count that had these texts (see `TokenMemo.begin`). */
  count: number;
  readonly texts: readonly unknown[];
  readonly entries: readonly SectionEntry[];
  /** The entries' tokens, emptiness and sum, as `tokensOf` answered. */
  readonly sections: readonly number[];
  readonly empty: readonly boolean[];
  readonly total: number;
}

/** The own variables of the last count, by position. */
interface SeenVariables {
  readonly names: readonly string[];
  readonly values: readonly unknown[];
}

/**
 * Remembers what a counter answered per distinct text, and per section
 * text the values it was last rendered with (so an unchanged section costs
 * a lookup, not a render). Both are {@linkcode Generations}.
 */
export class TokenMemo {
  readonly countTokens: CountTokens;
  readonly #texts: Generations<number>;
  readonly #sections: Generations<SectionEntry>;
  readonly #toolLists: Generations<readonly number[]>;
  #lastTools: LastTools | undefined;
  #count = 0;
  #variables: SeenVariables | undefined;
  #lastCount: LastCount | undefined;

  constructor(countTokens: CountTokens, options: TokenMemoOptions = {}) {
    this.countTokens = countTokens;
    const maxChars = options.maxChars ?? MAX_CHARS;
    const maxEntries = options.maxEntries ?? MAX_ENTRIES;
    this.#texts = new Generations(maxChars, maxEntries);
    this.#sections = new Generations(maxChars, maxEntries);
    this.#toolLists = new Generations(maxChars, maxEntries);
  }

  /**
   * The tokens of `text`, from the memo or the counter; `what` names the
   * text for the counter's errors (`section "name"`, `tool "name"`).
   *
   * @throws {SystemPromptError} `PROVIDER_FAILED` when the counter throws
   * or answers anything but a non-negative integer.
   */
  count(text: string, what: () => string): number {
    const known = this.#texts.get(text);
    if (known !== undefined) return known;
    const tokens = countText(this.countTokens, text, what);
    this.#texts.set(text, tokens);
    return tokens;
  }

  /**
   * Starts one count of an assembly's tokens: whether `variables` holds
   * the same own keys with the same values, in the same order, as the
   * previous count's. Then an entry checked in the previous count is
   * current without reading its values again (see `current`).
   */
  begin(variables: PromptAssembly["variables"]): boolean {
    this.#count++;
    const names = Object.getOwnPropertyNames(variables);
    const seen = this.#variables;
    if (seen !== undefined && seen.names.length === names.length) {
      let index = 0;
      for (; index < names.length; index++) {
        const name = names[index];
        // A Proxy may list a key it then says is not its own.
        if (
          name !== seen.names[index] ||
          variables[name] !== seen.values[index] ||
          !Object.hasOwn(variables, name)
        ) break;
      }
      // The same: what was seen stays, and nothing is allocated.
      if (index === names.length) return true;
    }
    const values: unknown[] = new Array(names.length);
    for (let index = 0; index < names.length; index++) {
      values[index] = variables[names[index]];
    }
    this.#variables = { names, values };
    return false;
  }

  /**
   * Whether `entry` was found current in the previous count (with
   * variables the same since, as {@linkcode TokenMemo.begin} said) or in
   * this one; marks it current in this count.
   */
  current(entry: SectionEntry, steady: boolean): boolean {
    const count = this.#count;
    if (entry.checkedIn === count) return true;
    if (!steady || entry.checkedIn !== count - 1) return false;
    entry.checkedIn = count;
    return true;
  }

  /**
   * The entry of the section at `index` when the previous count had the
   * same text there and the variables are the same since (`steady`): found
   * without a lookup, as an agent loop's sections come back in place.
   */
  inPlace(
    index: number,
    text: unknown,
    steady: boolean,
  ): SectionEntry | undefined {
    const last = this.#lastCount;
    if (
      !steady || last === undefined || last.count !== this.#count - 1 ||
      last.texts[index] !== text
    ) return undefined;
    // Not marked: an entry in place is current because the previous
    // count's was, and writing to thousands of entries costs more than it
    // saves the rare lookup after a section moved.
    return last.entries[index];
  }

  /**
   * The previous count's sections when `steady` and every section of
   * `sections` holds the previous count's text at its index: an agent
   * loop's steady step, counted without a write.
   */
  again(
    sections: readonly AssembledSection[],
    steady: boolean,
  ): LastCount | undefined {
    const last = this.#lastCount;
    if (
      !steady || last === undefined || last.count !== this.#count - 1 ||
      last.texts.length !== sections.length
    ) return undefined;
    const texts = last.texts;
    for (let index = 0; index < texts.length; index++) {
      if (textOf(sections[index]) !== texts[index]) return undefined;
    }
    last.count = this.#count;
    return last;
  }

  /**
   * Remembers this count's sections for {@linkcode TokenMemo.inPlace} and
   * {@linkcode TokenMemo.again}.
   */
  counted(last: Omit<LastCount, "count">): void {
    this.#lastCount = { ...last, count: this.#count };
  }

  /** Marks `entry` found current in this count. */
  checked(entry: SectionEntry): void {
    entry.checkedIn = this.#count;
  }

  /** The last rendering of section text `text`, if remembered. */
  sectionOf(text: string): SectionEntry | undefined {
    return this.#sections.get(text);
  }

  /** Remembers how section text `text` rendered. */
  rememberSection(text: string, entry: SectionEntry): void {
    this.#sections.set(text, entry);
  }

  /**
   * The tokens of each tool of `list` when it writes the JSON of the last
   * list (one that came twice in a row): known without writing its JSON.
   */
  unchangedTools(list: readonly ToolSchema[]): readonly number[] | undefined {
    const last = this.#lastTools;
    if (last?.kept === undefined) return undefined;
    try {
      return writesSameJsonList(list, last.kept) ? last.tokens : undefined;
    } catch {
      // A getter, a Proxy or a depth the stack does not hold: the caller's
      // JSON.stringify says what is wrong, if anything.
      return undefined;
    }
  }

  /**
   * The tokens of each tool of a list whose JSON is `json`, if known. The
   * last list is compared first: equal strings compare in one pass, where a
   * lookup would hash the whole JSON first.
   */
  toolsOf(json: string): readonly number[] | undefined {
    const last = this.#lastTools;
    if (last !== undefined && last.json === json) {
      // Twice in a row: the loop's tools are steady, and comparing the
      // next list with each tool's kept JSON costs less than writing it.
      last.kept ??= (JSON.parse(json) as unknown[]).map(keepJson);
      return last.tokens;
    }
    const tokens = this.#toolLists.get(json);
    if (tokens !== undefined) {
      this.#lastTools = { json, tokens, kept: undefined };
    }
    return tokens;
  }

  /** Remembers the tokens of each tool of a list whose JSON is `json`. */
  rememberTools(json: string, tokens: readonly number[]): void {
    this.#toolLists.set(json, tokens);
    this.#lastTools = { json, tokens, kept: undefined };
  }

  /** How many texts and code units the memo holds (tests, diagnostics). */
  stats(): { entries: number; chars: number } {
    let entries = 0;
    let chars = 0;
    for (const memo of [this.#texts, this.#sections, this.#toolLists]) {
      const stats = memo.stats();
      entries += stats.entries;
      chars += stats.chars;
    }
    return { entries, chars };
  }
}

/** The `text` of an assembled section, or `undefined` for a non-object. */
export function textOf(section: unknown): unknown {
  return typeof section === "object" && section !== null
    ? (section as { text?: unknown }).text
    : undefined;
}
