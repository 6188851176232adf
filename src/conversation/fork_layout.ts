/**
 * A fork's system prompt laid out on its parent's (SPEC 9.8 "Marks and
 * lifetimes"): a provider caches a prefix only at the block boundaries it
 * was written at, so the sections a child shares with its parent's last
 * request come first, in the parent's order and cut where the parent's
 * blocks were cut; the sections the child has of its own (its scope's, or
 * one whose text differs) follow, in their order. Pure.
 *
 * @module
 */

import type { AssembledSection, PromptAssembly } from "../types.ts";
import { renderSections } from "../render/interpolate.ts";
import { rankOf, STABILITIES } from "../shared/stability.ts";
import type { RecordingFork } from "./recording.ts";
import type { PromptExplanation } from "../explain/explanation.ts";
import type { ListedTool } from "./tool_set.ts";
import type { HeldSection } from "./system_changes.ts";

/** What the renderers put between two non-empty sections. */
const SEPARATOR = "\n\n";

/** The stabilities an assembled section may have. */
const KNOWN = new Set<unknown>([undefined, "agent", "volatile"]);

/** One child section found in the parent's system prompt. */
interface Match {
  /** Its index in the child's sections. */
  readonly index: number;
  /** Whether a parent block ends with it. */
  readonly endsBlock: boolean;
}

/**
 * `assembly` with its sections laid out on `parent` (the texts of the
 * parent's system parts as sent): the child's sections, volatile ones
 * aside, that render the parent's text from its start come first, in that
 * order, with a cut (`cacheBreakpoint`) exactly where a parent part ended
 * and one stability per parent part, so they render the parent's parts
 * byte for byte; the other sections follow in the assembly's order. An
 * assembly that shares nothing, or that does not render, is returned as it
 * is (the wire's adapter reports what is wrong with it).
 */
export function forkLayout(
  assembly: PromptAssembly,
  parent: readonly string[],
): PromptAssembly {
  const sections = assembly.sections;
  let texts: string[];
  try {
    texts = renderSections(sections, assembly.variables);
  } catch {
    return assembly;
  }
  if (sections.some((section) => !KNOWN.has(section.stability))) {
    return assembly;
  }
  // A volatile section is never shared: the parent's marks stop before it
  // (SPEC 9.2), and laid out first it would move the child's own sections
  // the next time it changes.
  const candidates = sections.map((section, index) =>
    section.stability === "volatile" ? "" : texts[index]
  );
  const matches = sharedSections(candidates, parent);
  if (matches.length === 0) return assembly;
  const used = new Set(matches.map((match) => match.index));
  const lastEnd = matches.findLastIndex((match) => match.endsBlock);
  const laidOut: AssembledSection[] = [];
  let block: AssembledSection[] = [];
  matches.forEach((match, at) => {
    const section = sections[match.index];
    if (at > lastEnd) {
      laidOut.push(section);
      return;
    }
    block.push(section);
    if (!match.endsBlock) return;
    laidOut.push(...asOneBlock(block));
    block = [];
  });
  sections.forEach((section, index) => {
    if (!used.has(index)) laidOut.push(section);
  });
  return { ...assembly, sections: laidOut };
}

/**
 * The child's sections whose texts, joined as the renderers join them,
 * render `parent` from its start, in the parent's order (at each point the
 * longest text that fits, so a text holding a separator wins over its own
 * first paragraph; an empty text never fits).
 */
function sharedSections(
  texts: readonly string[],
  parent: readonly string[],
): Match[] {
  const whole = parent.join("");
  const ends = new Set<number>();
  let length = 0;
  for (const part of parent) ends.add(length += part.length);
  const matches: Match[] = [];
  const used = new Set<number>();
  let at = 0;
  while (at < whole.length) {
    const start = at === 0 ? 0 : at + SEPARATOR.length;
    if (at > 0 && !whole.startsWith(SEPARATOR, at)) break;
    let found = -1;
    texts.forEach((text, index) => {
      if (
        text === "" || used.has(index) ||
        (found >= 0 && text.length <= texts[found].length) ||
        !whole.startsWith(text, start)
      ) return;
      const end = start + text.length;
      if (end === whole.length || whole.startsWith(SEPARATOR, end)) {
        found = index;
      }
    });
    if (found < 0) break;
    used.add(found);
    at = start + texts[found].length;
    matches.push({
      index: found,
      // A part ends after the separator that follows its last section, or
      // right before it (a fork's own part starts with it), or at the end.
      endsBlock: ends.has(at) || ends.has(at + SEPARATOR.length),
    });
  }
  return matches;
}

/**
 * The sections of one parent part, flagged to render as one block: no cut
 * inside (one stability, the most volatile of theirs, and no breakpoint
 * but on the last), a cut after the last.
 */
function asOneBlock(
  sections: readonly AssembledSection[],
): AssembledSection[] {
  const rank = Math.max(
    ...sections.map((section) => rankOf(section.stability ?? "stable")),
  );
  const stability = STABILITIES[rank];
  return sections.map((section, index) => {
    const { cacheBreakpoint: _cut, stability: _own, ...rest } = section;
    return {
      ...rest,
      ...(stability === "stable" ? {} : { stability }),
      ...(index === sections.length - 1 ? { cacheBreakpoint: true } : {}),
    } as AssembledSection;
  });
}

/** The texts of a fork's parent's last system parts, if it is a fork. */
export function parentSystemOf(
  fork: { readonly head?: Readonly<Record<string, unknown>> } | undefined,
  form: { systemTexts(head: Readonly<Record<string, unknown>>): string[] },
): readonly string[] | undefined {
  return fork?.head === undefined ? undefined : form.systemTexts(fork.head);
}

/** What a fork takes from its parent's committed state. */
export function forkOf(
  committed: {
    readonly listed: readonly ListedTool[] | undefined;
    readonly state: Readonly<Record<string, unknown>>;
    readonly head: string | undefined;
    readonly told?: { readonly head: readonly HeldSection[] };
  },
  session: string,
): RecordingFork {
  const head = committed.head === undefined
    ? undefined
    : JSON.parse(committed.head);
  return {
    session,
    listed: [...committed.listed ?? []],
    state: { ...committed.state },
    ...(head === undefined ? {} : { head }),
    ...(committed.told === undefined
      ? {}
      : { headSections: [...committed.told.head] }),
  };
}

/**
 * A step's explanation as its request was sent: a fork's provenance names
 * its sections as laid out on its parent's (`listed`), not as assembled.
 */
export function explanationAsSent(
  explanation: PromptExplanation | undefined,
  listed: PromptAssembly,
  parentSystem: readonly string[] | undefined,
): PromptExplanation | undefined {
  if (explanation === undefined || parentSystem === undefined) {
    return explanation;
  }
  return {
    ...explanation,
    assembly: { ...explanation.assembly, sections: listed.sections },
  };
}
