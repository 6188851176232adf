/**
 * `o200k_base` counts memoised per text, a long text's head counted once
 * for every text that starts with it. A recording's report counts texts
 * that repeat one another but for their ends: on Responses an item that is
 * not a message is keyed and counted as its JSON, so a tool output's
 * marked copy (its mark at the end) is a text of its own, and OpenAI's
 * partial match counts the part it shares with the unmarked one, a third.
 * Counting each whole tripled the command's tokenizing.
 *
 * The split is exact for `o200k_base`: its pre-tokenizer
 * (`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+…|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`)
 * cuts a text into chunks matched one after the other, each counted on its
 * own, with no lookbehind. Between an ASCII letter and a digit every
 * chunking cuts: only the letter alternatives match a letter, and they
 * match no digit. And every match attempt that reads the digit stops
 * there exactly as it would at the text's end (a letter class or `'`
 * does not match a digit; `(?!\S)`, the one test the end would pass, only
 * follows white space). So the text's count is its head's plus its
 * tail's, each counted alone.
 *
 * The same chunks make the count itself cheaper: a text's count is the sum
 * of its chunks' (each chunk's tokens are its byte-pair encoding's), and a
 * session's texts are made of far fewer distinct chunks than they hold
 * (code and prose repeat their words), so each distinct chunk is counted
 * once by the tokenizer and then looked up in a small table: 40% less time
 * than the tokenizer's own lookups in its 200,000 ranks.
 *
 * @module
 */

import { TextMap } from "../src/shared/text_map.ts";
import type { CountTokens } from "./tokens.ts";
import { chunkEnd, ChunkTable, isAscii, O200K_CHUNKS } from "./token_chunks.ts";

/** Shorter texts are counted whole: their head would be counted once. */
const SHORTEST_SPLIT = 256;

/**
 * Memoises `count` (an `o200k_base` counter) per text; a text of
 * {@linkcode SHORTEST_SPLIT} characters or more is counted as its head,
 * through its last cut between an ASCII letter and a digit (memoised
 * too), plus the rest.
 */
export function headSharingCounter(count: CountTokens): CountTokens {
  const counts = new TextMap<number>();
  const counted = (text: string): number => {
    let tokens = counts.get(text);
    if (tokens === undefined) counts.set(text, tokens = count(text));
    return tokens;
  };
  return (text) => {
    let tokens = counts.get(text);
    if (tokens !== undefined) return tokens;
    const cut = text.length < SHORTEST_SPLIT ? 0 : lastCut(text);
    tokens = cut === 0
      ? count(text)
      : counted(text.slice(0, cut)) + count(text.slice(cut));
    counts.set(text, tokens);
    return tokens;
  };
}

/** The longest chunk whose count is kept. */
const LONGEST_KEPT_CHUNK = 256;

/**
 * Counts a text as the sum of its `o200k_base` chunks, each distinct chunk
 * counted by `count` once. A chunk alone is matched whole again (an
 * earlier alternative could only match it differently through `(?!\S)` at
 * its end, and then matches it whole too), so its count is its part of the
 * text's. An ASCII text's chunks are found and looked up in place
 * (`token_chunks.ts`); another's are the pattern's matches. A text that
 * may hold a special token (`<|endoftext|>`, …) is counted whole, so that
 * `count` refuses it as before.
 */
export function chunkCounter(count: CountTokens): CountTokens {
  const table = new ChunkTable(count);
  // Chunks are short but for runs of white space or punctuation: a long
  // one is counted as it comes (a `Map` hashes a long key by its length).
  const chunks = new Map<string, number>();
  return (text) => {
    if (text.includes("<|")) return count(text);
    let tokens = 0;
    if (isAscii(text)) {
      for (let start = 0; start < text.length;) {
        const end = chunkEnd(text, start);
        tokens += end - start > LONGEST_KEPT_CHUNK
          ? count(text.slice(start, end))
          : table.count(text, start, end);
        start = end;
      }
      return tokens;
    }
    for (const chunk of text.match(O200K_CHUNKS) ?? []) {
      if (chunk.length > LONGEST_KEPT_CHUNK) {
        tokens += count(chunk);
        continue;
      }
      let counted = chunks.get(chunk);
      if (counted === undefined) chunks.set(chunk, counted = count(chunk));
      tokens += counted;
    }
    return tokens;
  };
}

/**
 * The last index that holds a digit after an ASCII letter, 0 if none: the
 * pre-tokenizer cuts there in any text.
 */
export function lastCut(text: string): number {
  for (let at = text.length - 1; at > 0; at--) {
    const code = text.charCodeAt(at);
    if (code < 0x30 || code > 0x39) continue;
    const before = text.charCodeAt(at - 1) | 0x20;
    if (before >= 0x61 && before <= 0x7a) return at;
  }
  return 0;
}
