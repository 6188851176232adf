/**
 * The one token accounting of SPEC 8.9, shared by the budget, `explain()`
 * and the command line: the sum of each non-empty rendered section's tokens
 * plus each tool's `JSON.stringify` tokens; separators are not counted.
 *
 * A {@linkcode TokenMemo} remembers the count of each distinct text, so a
 * counter is called once per text while the text is unchanged: a registry
 * keeps one memo per counter, and an agent loop whose prompt barely changes
 * pays for a budget with lookups only. Pure but for the memo, which changes
 * no result.
 *
 * @module
 */

import { quote, SystemPromptError } from "../errors.ts";
import { callProvider } from "../shared/provider.ts";
import { renderSections } from "../render/interpolate.ts";
import {
  checkAssembly,
  describeType,
  readingAssembly,
} from "../render/assembly_shape.ts";
import type { AssembledSection, PromptAssembly, ToolSchema } from "../types.ts";
import { cachedTemplateOf } from "../render/template_cache.ts";
import { parseTemplate } from "../render/template.ts";
import { TextMap } from "../shared/text_map.ts";
import {
  type JsonSnapshot,
  jsonSnapshot,
  writesSnapshot,
} from "./json_snapshot.ts";

/**
 * Counts the tokens of one text: a non-negative integer.
 *
 * @example
 * ```ts
 * import type { CountTokens } from "@rxprompt/system-prompt";
 *
 * // A rough estimate; a real tokenizer (o200k_base, cl100k) is exact.
 * const quarter: CountTokens = (text) => Math.ceil(text.length / 4);
 * ```
 */
export type CountTokens = (text: string) => number;

/**
 * The tokens of one assembly, entry by entry, under the one accounting.
 *
 * @example
 * ```ts
 * import { countAssemblyTokens } from "@rxprompt/system-prompt";
 *
 * const tokens = countAssemblyTokens({
 *   sections: [{ name: "a", order: 0, text: "Be brief." }],
 *   tools: [],
 *   variables: {},
 * }, (text) => text.split(" ").length);
 * console.log(tokens.total); // 2
 * ```
 */
export interface AssemblyTokens {
  /** Per section, in the assembly's order: 0 for one that renders empty. */
  sections: number[];
  /** Per tool, in the assembly's order: the tokens of its JSON. */
  tools: number[];
  /** The sum of `sections` and `tools`. */
  total: number;
}

/**
 * {@linkcode AssemblyTokens} as the memo counted them: its lists may be
 * the memo's own, reused by the next steady count, so they are read only.
 */
export interface CountedAssembly {
  /** Per section, in the assembly's order: 0 for one that renders empty. */
  readonly sections: readonly number[];
  /** Per tool, in the assembly's order: the tokens of its JSON. */
  readonly tools: readonly number[];
  /** The sum of `sections` and `tools`. */
  readonly total: number;
  /** Per section: whether it renders empty (never pruned). */
  readonly empty: readonly boolean[];
}

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
  // Keyed by digest when long: V8 hashes a long string by its length.
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

/**
 * What a section text rendered to, last time, with the values it read: the
 * same values give the same rendered text, so its tokens are known without
 * rendering it again.
 */
/** The last tool list counted, and its snapshot once it came twice. */
interface LastTools {
  readonly json: string;
  readonly tokens: readonly number[];
  snapshot: JsonSnapshot | undefined;
}

interface SectionEntry {
  readonly names: readonly string[];
  readonly values: readonly string[];
  readonly tokens: number;
  readonly empty: boolean;
  /** The count (see `TokenMemo.begin`) that last found its values current. */
  checkedIn: number;
}

/** The section texts of the last count and their entries, by index. */
interface LastCount {
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
    if (
      last?.snapshot === undefined || !writesSnapshot(list, last.snapshot)
    ) return undefined;
    return last.tokens;
  }

  /**
   * The tokens of each tool of a list whose JSON is `json`, if known. The
   * last list is compared first: equal strings compare in one pass, where a
   * lookup would hash the whole JSON first.
   */
  toolsOf(json: string): readonly number[] | undefined {
    const last = this.#lastTools;
    if (last !== undefined && last.json === json) {
      // Twice in a row: the loop's tools are steady, and walking the next
      // list against a snapshot costs less than writing its JSON.
      last.snapshot ??= jsonSnapshot(json);
      return last.tokens;
    }
    const tokens = this.#toolLists.get(json);
    if (tokens !== undefined) {
      this.#lastTools = { json, tokens, snapshot: undefined };
    }
    return tokens;
  }

  /** Remembers the tokens of each tool of a list whose JSON is `json`. */
  rememberTools(json: string, tokens: readonly number[]): void {
    this.#toolLists.set(json, tokens);
    this.#lastTools = { json, tokens, snapshot: undefined };
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

/**
 * Calls the counter once on `text` and checks its answer (`explain()`
 * counts through it too).
 *
 * @throws {SystemPromptError} `PROVIDER_FAILED` when the counter throws or
 * answers anything but a non-negative integer.
 */
export function countText(
  countTokens: CountTokens,
  text: string,
  what: () => string,
): number {
  const tokens: unknown = callProvider(
    countTokens,
    text,
    () => `token counter (countTokens) on ${what()}`,
  );
  if (Number.isSafeInteger(tokens) && (tokens as number) >= 0) {
    return tokens as number;
  }
  throw new SystemPromptError(
    "PROVIDER_FAILED",
    `The token counter (countTokens) returned ${quote(tokens)} for ` +
      `${what()}; it must return a whole number of tokens, 0 or more.`,
  );
}

/**
 * The JSON a tool is counted by: `JSON.stringify(tool)`.
 *
 * @throws {SystemPromptError} `INVALID_ASSEMBLY` for a tool that cannot be
 * written as JSON.
 */
export function toolJson(tool: ToolSchema, index: number): string {
  if (typeof tool !== "object" || tool === null || Array.isArray(tool)) {
    throw notJson(tool, index, undefined);
  }
  let json: unknown;
  try {
    json = JSON.stringify(tool);
  } catch (error) {
    throw notJson(tool, index, error);
  }
  if (typeof json !== "string") throw notJson(tool, index, undefined);
  return json;
}

function notJson(tool: unknown, index: number, cause: unknown) {
  const name = (tool as { name?: unknown } | null)?.name;
  const label = typeof name === "string"
    ? `Tool ${quote(name)}`
    : `The assembly's tools[${index}]`;
  return new SystemPromptError(
    "INVALID_ASSEMBLY",
    `${label} cannot be written as JSON, so its tokens cannot be counted; ` +
      `a tool holds JSON data only.`,
    cause === undefined ? undefined : { cause },
  );
}

/** `tool "name"` or `tools[i]`, for the counter's messages. */
function toolLabel(tool: ToolSchema, index: number): string {
  const name = (tool as { name?: unknown } | null)?.name;
  return typeof name === "string" ? `tool ${quote(name)}` : `tools[${index}]`;
}

/**
 * The tokens of each entry of `assembly` through `memo`: the sections
 * rendered (errors as `renderPrompt`'s), the empty ones 0 without a call.
 * A section whose text and referenced values are those of its last
 * rendering is not rendered again.
 */
export function tokensOf(
  assembly: PromptAssembly,
  memo: TokenMemo,
): CountedAssembly {
  const { sections: entries, tools: list, variables } = assembly;
  if (!Array.isArray(list)) {
    throw new SystemPromptError(
      "INVALID_ASSEMBLY",
      `The assembly's tools is ${describeType(list)}; it must be an array ` +
        `of tools { name, description, parameters }.`,
    );
  }
  if (
    !Array.isArray(entries) || typeof variables !== "object" ||
    variables === null
  ) {
    // The renderer says what is wrong.
    renderSections(entries, variables);
  }
  const steady = memo.begin(variables);
  const { sections, empty, total: sectionTokens } = memo.again(
    entries,
    steady,
  ) ?? countSections(entries, { variables, memo, steady });
  const tools = toolTokens(list, memo);
  let total = sectionTokens;
  for (let index = 0; index < tools.length; index++) total += tools[index];
  return { sections, tools, total, empty };
}

/** The `text` of an assembled section, or `undefined` for a non-object. */
function textOf(section: unknown): unknown {
  return typeof section === "object" && section !== null
    ? (section as { text?: unknown }).text
    : undefined;
}

/** Each section's tokens, remembered in `memo` for the next count. */
function countSections(
  entries: readonly AssembledSection[],
  { variables, memo, steady }: {
    variables: PromptAssembly["variables"];
    memo: TokenMemo;
    steady: boolean;
  },
): Omit<LastCount, "count"> {
  const count = entries.length;
  const sections: number[] = new Array(count);
  const empty: boolean[] = new Array(count);
  const texts: unknown[] = new Array(count);
  const found: SectionEntry[] = new Array(count);
  let total = 0;
  for (let index = 0; index < count; index++) {
    const text = textOf(entries[index]);
    const entry = memo.inPlace(index, text, steady) ??
      memoised(text, { variables, memo, steady }) ??
      rendering(entries, index, variables, memo);
    texts[index] = text;
    found[index] = entry;
    sections[index] = entry.tokens;
    empty[index] = entry.empty;
    total += entry.tokens;
  }
  const counted = { texts, entries: found, sections, empty, total };
  memo.counted(counted);
  return counted;
}

/**
 * Each tool's tokens. The whole list's JSON is looked up first: an
 * unchanged tool list costs one `JSON.stringify` and one lookup, not one per
 * tool. The list's JSON is each tool's JSON joined by commas in brackets,
 * so it stands for exactly those tools.
 */
function toolTokens(
  list: readonly ToolSchema[],
  memo: TokenMemo,
): readonly number[] {
  if (list.length === 0) return [];
  const unchanged = memo.unchangedTools(list);
  if (unchanged !== undefined) return unchanged;
  let whole: string | undefined;
  try {
    whole = JSON.stringify(list);
  } catch {
    // Each tool's own stringify says which one fails.
  }
  const known = whole === undefined ? undefined : memo.toolsOf(whole);
  if (known !== undefined) return known;
  const tools: number[] = new Array(list.length);
  for (let index = 0; index < list.length; index++) {
    const tool = list[index];
    tools[index] = memo.count(
      toolJson(tool, index),
      () => toolLabel(tool, index),
    );
  }
  if (whole !== undefined) memo.rememberTools(whole, tools);
  return tools;
}

/** The memo's entry of `section` when its values are unchanged. */
function memoised(
  text: unknown,
  { variables, memo, steady }: {
    variables: PromptAssembly["variables"];
    memo: TokenMemo;
    steady: boolean;
  },
): SectionEntry | undefined {
  if (typeof text !== "string") return undefined;
  const entry = memo.sectionOf(text);
  if (entry === undefined) return undefined;
  if (memo.current(entry, steady)) return entry;
  const { names, values } = entry;
  for (let index = 0; index < names.length; index++) {
    const name = names[index];
    if (variables[name] !== values[index] || !Object.hasOwn(variables, name)) {
      return undefined;
    }
  }
  memo.checked(entry);
  return entry;
}

/**
 * Renders the section at `index` (throwing as `renderPrompt` would), counts
 * it and remembers the values it read.
 */
function rendering(
  entries: readonly AssembledSection[],
  index: number,
  variables: PromptAssembly["variables"],
  memo: TokenMemo,
): SectionEntry {
  const section = entries[index];
  if (typeof section !== "object" || section === null) {
    // Rendered up to this entry, so that the error names its index.
    renderSections(entries.slice(0, index + 1), variables);
  }
  const rendered = renderSections([section], variables)[0];
  const empty = rendered === "";
  const tokens = empty
    ? 0
    : memo.count(rendered, () => `section ${quote(section.name)}`);
  const text = section.text;
  const names = (cachedTemplateOf(text) ?? parseTemplate(text)).names;
  const values = names.map((name) => variables[name] as string);
  const entry = { names, values, tokens, empty, checkedIn: 0 };
  memo.checked(entry);
  memo.rememberSection(text, entry);
  return entry;
}

/**
 * Counts an assembly's tokens the one way the budget, `explain()` and
 * `rxprompt check --max-tokens` and `inspect` do (SPEC 8.9): each non-empty
 * rendered section's tokens, plus each tool's `JSON.stringify` tokens;
 * separators are not counted. The counter is called once per distinct text.
 *
 * @param assembly the assembly to count (its sections are rendered)
 * @param countTokens the counter: a non-negative integer per text
 * @returns the tokens per section, per tool, and in all
 * @throws {SystemPromptError} the render errors of `renderPrompt`;
 * `PROVIDER_FAILED` when the counter throws or answers anything but a
 * non-negative integer; `INVALID_PROVIDER` when it is not a function;
 * `INVALID_ASSEMBLY` for a tool that cannot be written as JSON.
 *
 * @example
 * ```ts
 * import { countAssemblyTokens } from "@rxprompt/system-prompt";
 *
 * const words = (text: string) => text.split(/\s+/).length;
 * const tokens = countAssemblyTokens({
 *   sections: [
 *     { name: "rules", order: 0, text: "Be brief and exact." },
 *     { name: "empty", order: 1, text: "" },
 *   ],
 *   tools: [{ name: "ls", description: "List files.", parameters: {} }],
 *   variables: {},
 * }, words);
 * console.log(tokens.sections); // [4, 0]
 * console.log(tokens.tools); // [2]
 * console.log(tokens.total); // 6
 * ```
 */
export function countAssemblyTokens(
  assembly: PromptAssembly,
  countTokens: CountTokens,
): AssemblyTokens {
  const memo = new TokenMemo(checkCounter(countTokens, ""));
  return readingAssembly(() => {
    checkAssembly(assembly, "countAssemblyTokens");
    const { sections, tools, total } = tokensOf(assembly, memo);
    return { sections: sections.slice(), tools: tools.slice(), total };
  }, "countAssemblyTokens");
}

/**
 * `countTokens`, checked to be a function.
 *
 * @throws {SystemPromptError} `INVALID_PROVIDER` naming `where`.
 */
export function checkCounter(countTokens: unknown, where: string): CountTokens {
  if (typeof countTokens === "function") return countTokens as CountTokens;
  throw new SystemPromptError(
    "INVALID_PROVIDER",
    `The token counter${where} must be a function (text: string) => number; ` +
      `got ${quote(countTokens)}.`,
  );
}
