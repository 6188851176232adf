/**
 * A deterministic search over tools by words (SPEC §10.3): the search the
 * conversation answers its fixed search tool with when a form has no tool
 * search of its own. BM25 over each tool's name (weighted 2) and
 * description; ties, and every order between equal scores, go by the
 * tools' own order (canonical order, for an assembly's `deferredTools`).
 *
 * The same tools and the same query give the same hits, scores included,
 * on every engine: words are cut and lower-cased by fixed rules, and the
 * scores use only `+`, `-`, `*` and `/` (correctly rounded in IEEE 754
 * everywhere), never `Math.log`, whose last bit may differ between
 * engines.
 *
 * Pure: no state, no RxJS.
 *
 * @module
 */

import { quote, SystemPromptError } from "../errors.ts";
import type { ToolSchema } from "../types.ts";

/**
 * A tool found by {@linkcode searchTools}, and how well it matched.
 *
 * @example
 * ```ts
 * import { searchTools, toolSearchIndex } from "@rxprompt/system-prompt";
 *
 * const index = toolSearchIndex([
 *   { name: "crm_log_call", description: "Log a call.", parameters: {} },
 * ]);
 * const [hit] = searchTools(index, "log a call");
 * console.log(hit.tool.name, hit.score > 0); // crm_log_call true
 * ```
 */
export interface ToolSearchHit {
  /** The tool, as indexed. */
  readonly tool: ToolSchema;
  /** Its BM25 score: more is better; equal scores keep the tools' order. */
  readonly score: number;
}

/**
 * What {@linkcode searchTools} reads of a list of tools, built once by
 * {@linkcode toolSearchIndex} and searched any number of times.
 *
 * @example
 * ```ts
 * import { type ToolSearchIndex, toolSearchIndex } from "@rxprompt/system-prompt";
 *
 * const index: ToolSearchIndex = toolSearchIndex([
 *   { name: "crm_log_call", description: "Log a call.", parameters: {} },
 * ]);
 * console.log(index.tools.length); // 1
 * ```
 */
export interface ToolSearchIndex {
  /** The tools, in the order ties are broken by. */
  readonly tools: readonly ToolSchema[];
  /** Each tool's weighted term frequencies. */
  readonly terms: readonly ReadonlyMap<string, number>[];
  /** Each tool's weighted length, in terms. */
  readonly lengths: readonly number[];
  /** In how many tools each term occurs. */
  readonly documents: ReadonlyMap<string, number>;
  /** The mean of `lengths` (0 for no tools). */
  readonly meanLength: number;
}

/**
 * Options of {@linkcode searchTools}.
 *
 * @example
 * ```ts
 * import { searchTools, toolSearchIndex } from "@rxprompt/system-prompt";
 *
 * const index = toolSearchIndex([
 *   { name: "crm_log_call", description: "Log a call.", parameters: {} },
 *   { name: "crm_get_contact", description: "Get a contact.", parameters: {} },
 * ]);
 * console.log(searchTools(index, "crm", { limit: 1 }).length); // 1
 * ```
 */
export interface ToolSearchOptions {
  /** The most hits returned (default 5); a whole number, 1 or more. */
  readonly limit?: number;
}

/** BM25's term-frequency saturation and length normalisation. */
const K1 = 1.2;
const B = 0.75;
/** A name's words count this many times a description's. */
const NAME_WEIGHT = 2;
const DEFAULT_LIMIT = 5;

/**
 * Words that carry no meaning for a search (English function words): left
 * out of the index and of queries.
 */
const STOP_WORDS: ReadonlySet<string> = new Set([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "be",
  "by",
  "for",
  "from",
  "in",
  "into",
  "is",
  "it",
  "its",
  "of",
  "on",
  "or",
  "that",
  "the",
  "this",
  "to",
  "with",
]);

/**
 * Indexes `tools` (their names and descriptions) for
 * {@linkcode searchTools}; the tools' order breaks ties.
 *
 * @example
 * ```ts
 * import { searchTools, toolSearchIndex } from "@rxprompt/system-prompt";
 *
 * const index = toolSearchIndex([
 *   { name: "read_file", description: "Read a file.", parameters: {} },
 *   { name: "crm_log_call", description: "Log a phone call.", parameters: {} },
 * ]);
 * console.log(searchTools(index, "phone").map((hit) => hit.tool.name));
 * // ["crm_log_call"]
 * ```
 */
export function toolSearchIndex(tools: readonly ToolSchema[]): ToolSearchIndex {
  const terms: Map<string, number>[] = [];
  const lengths: number[] = [];
  const documents = new Map<string, number>();
  let total = 0;
  for (const tool of tools) {
    const counts = new Map<string, number>();
    let length = 0;
    const add = (term: string, weight: number) => {
      counts.set(term, (counts.get(term) ?? 0) + weight);
      length += weight;
    };
    for (const term of nameTerms(tool.name)) add(term, NAME_WEIGHT);
    for (const term of wordsOf(tool.description)) add(term, 1);
    for (const term of counts.keys()) {
      documents.set(term, (documents.get(term) ?? 0) + 1);
    }
    terms.push(counts);
    lengths.push(length);
    total += length;
  }
  return {
    tools,
    terms,
    lengths,
    documents,
    meanLength: tools.length === 0 ? 0 : total / tools.length,
  };
}

/**
 * The tools of `index` that match `query`'s words, best first, at most
 * `limit`: each scored by BM25 (a term's weight by how few tools hold it,
 * saturated by how often the tool does, normalised by its length); a tool
 * named exactly as a word of the query holds that word as a term of its
 * name. Equal scores keep the index's order. A query with no words (or
 * only stop words) finds nothing.
 *
 * This is the search the conversation answers its fixed search tool with
 * (and OpenAI Responses' client-executed `tool_search`); a harness may call
 * it to show what the model would find.
 *
 * @example
 * ```ts
 * import { searchTools, toolSearchIndex } from "@rxprompt/system-prompt";
 *
 * const index = toolSearchIndex([
 *   { name: "calendar_create_event", description: "Create an event.", parameters: {} },
 *   { name: "github_create_issue", description: "Open an issue.", parameters: {} },
 * ]);
 * const hits = searchTools(index, "open issues", { limit: 3 });
 * console.log(hits.map((hit) => hit.tool.name)); // ["github_create_issue"]
 * ```
 */
export function searchTools(
  index: ToolSearchIndex,
  query: string,
  options: ToolSearchOptions = {},
): ToolSearchHit[] {
  const limit = options.limit ?? DEFAULT_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `A tool search's limit is ${quote(limit)}; it is a whole number of ` +
        `hits, 1 or more.`,
    );
  }
  const words = [...new Set(queryTerms(query))];
  const { tools, terms, lengths, documents, meanLength } = index;
  const count = tools.length;
  const weights = words.map((word) => {
    const holding = documents.get(word) ?? 0;
    return holding === 0 ? 0 : idf(count, holding);
  });
  const hits: { index: number; score: number }[] = [];
  for (let at = 0; at < count; at++) {
    let score = 0;
    const norm = K1 * (1 - B + B * lengths[at] / meanLength);
    for (let w = 0; w < words.length; w++) {
      const frequency = terms[at].get(words[w]);
      if (frequency === undefined) continue;
      score += weights[w] * frequency * (K1 + 1) / (frequency + norm);
    }
    if (score > 0) hits.push({ index: at, score });
  }
  hits.sort((a, b) => b.score - a.score || a.index - b.index);
  return hits.slice(0, limit).map(({ index: at, score }) => ({
    tool: tools[at],
    score,
  }));
}

/**
 * BM25's inverse document frequency, `ln(1 + (N - n + 0.5) / (n + 0.5))`,
 * through {@linkcode ln}.
 */
function idf(count: number, holding: number): number {
  return ln(1 + (count - holding + 0.5) / (holding + 0.5));
}

/**
 * The natural logarithm of `x > 0` with basic operations only: `x` scaled
 * into [1, 2) by halving or doubling (exact), then `2·atanh((y-1)/(y+1))`
 * summed to a fixed number of terms. Accurate to about 1e-15, and the same
 * bits on every engine. Internal: no entry point exports it.
 */
export function ln(x: number): number {
  let scaled = x;
  let twos = 0;
  while (scaled >= 2) {
    scaled /= 2;
    twos++;
  }
  while (scaled < 1) {
    scaled *= 2;
    twos--;
  }
  const y = (scaled - 1) / (scaled + 1);
  const square = y * y;
  let power = y;
  let sum = 0;
  // y ≤ 1/3: 24 odd terms take the series below 1e-24.
  for (let k = 0; k < 24; k++) {
    sum += power / (2 * k + 1);
    power *= square;
  }
  return 2 * sum + twos * LN2;
}

/** ln 2, as a literal: the same double everywhere. */
const LN2 = 0.6931471805599453;

/** A tool name's terms: its words, and the whole name lower-cased. */
function nameTerms(name: string): string[] {
  const whole = name.toLowerCase();
  const words = wordsOf(name);
  return words.length === 1 && words[0] === whole ? words : [...words, whole];
}

/**
 * A query's terms: its words, and each whitespace-separated piece as it
 * stands (lower-cased), so that a tool's exact name matches that name.
 */
function queryTerms(query: string): string[] {
  const pieces = query.toLowerCase().split(/\s+/).filter((piece) =>
    piece !== "" && !STOP_WORDS.has(piece)
  );
  return [...wordsOf(query), ...pieces];
}

/**
 * The words of a text: runs of letters and digits, cut again at camelCase
 * and letter-digit boundaries, lower-cased, stop words left out, plurals
 * made singular by three fixed suffix rules.
 */
function wordsOf(text: string): string[] {
  const words: string[] = [];
  for (const [run] of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    for (const [part] of run.matchAll(CAMEL_PARTS)) {
      const word = singular(part.toLowerCase());
      if (!STOP_WORDS.has(word)) words.push(word);
    }
  }
  return words;
}

/** `HTTPServer2go` → `HTTP`, `Server`, `2`, `go`; other letters stay whole. */
const CAMEL_PARTS = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[^A-Za-z0-9]+/g;

/** `entries` → `entry`, `boxes` → `box`, `contacts` → `contact`. */
function singular(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && /(?:s|x|z|ch|sh)es$/.test(word)) {
    return word.slice(0, -2);
  }
  if (word.length > 3 && word.endsWith("s") && !/(?:ss|us|is)$/.test(word)) {
    return word.slice(0, -1);
  }
  return word;
}
