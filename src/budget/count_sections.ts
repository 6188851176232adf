/**
 * Each section's tokens (SPEC 8.9) through the memo: a section whose text
 * sits where it sat in the previous count, or whose text and referenced
 * values are those of its last rendering, is not rendered again; any other
 * is rendered (throwing as `renderPrompt` would), counted and remembered with
 * the values it read.
 *
 * @module
 */

import { quote } from "../errors.ts";
import { renderSections } from "../render/interpolate.ts";
import type { AssembledSection, PromptAssembly } from "../types.ts";
import { cachedTemplateOf } from "../render/template_cache.ts";
import { parseTemplate } from "../render/template.ts";
import {
  type LastCount,
  type SectionEntry,
  textOf,
  type TokenMemo,
} from "./token_memo.ts";

export /** Each section's tokens, remembered in `memo` for the next count. */
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
