/**
 * What the model has been told about the system prompt, and what changed
 * since (SPEC 10.1): the sections the head was built of (kept, so a later
 * head renders the same bytes), each section's text as the model last read
 * it (the head's, or a change sent inline), and the changes of a step's
 * assembly against that view. Pure.
 *
 * @module
 */

import type { AssembledSection, PromptAssembly } from "../types.ts";
import { renderSections } from "../render/interpolate.ts";

/**
 * A section as a head was built of it: its rendered text (no variable left
 * to resolve), its order, breakpoint and stability. A recording keeps them
 * (`RecordingStep.headSections`) so a resumed conversation builds the same
 * head.
 *
 * @example
 * ```ts
 * import type { HeldSection } from "@rxprompt/system-prompt";
 *
 * const section: HeldSection = { name: "git", order: 30, text: "On main." };
 * ```
 */
export interface HeldSection {
  /** The section's name. */
  readonly name: string;
  /** Its render position. */
  readonly order: number;
  /** The rendered text. */
  readonly text: string;
  /** Present when the section is a cache breakpoint. */
  readonly cacheBreakpoint?: true;
  /** Its effective stability, when not `stable`. */
  readonly stability?: "agent" | "volatile";
}

/** What the model has been told of the system prompt. */
export interface Told {
  /** The sections the head is built of, in its order. */
  readonly head: readonly HeldSection[];
  /** Each section's text as the model last read it (none: removed). */
  readonly sections: ReadonlyMap<string, string>;
}

/**
 * A section changed since the model last read it: told in the conversation
 * (`changes: "inline"`), never by editing the system prompt.
 *
 * @example
 * ```ts
 * import type { SectionChange } from "@rxprompt/system-prompt";
 *
 * const change: SectionChange = { kind: "changed", name: "git", text: "On fix/test." };
 * ```
 */
export interface SectionChange {
  /** New since the model last read the prompt, changed, or gone. */
  readonly kind: "added" | "changed" | "removed";
  /** The section's name. */
  readonly name: string;
  /** The new text; absent for `"removed"`. */
  readonly text?: string;
}

/** The sections of an assembly, rendered (a section rendering `""` left out). */
export function heldSections(assembly: PromptAssembly): HeldSection[] {
  const texts = renderSections(assembly.sections, assembly.variables);
  const held: HeldSection[] = [];
  assembly.sections.forEach((section, index) => {
    const text = texts[index];
    if (text === "") return;
    held.push({
      name: section.name,
      order: section.order,
      text,
      ...(section.cacheBreakpoint === true ? { cacheBreakpoint: true } : {}),
      ...(section.stability === undefined
        ? {}
        : { stability: section.stability }),
    });
  });
  return held;
}

/** What the model is told by a head built of `head`. */
export function toldOf(head: readonly HeldSection[]): Told {
  return {
    head,
    sections: new Map(head.map((section) => [section.name, section.text])),
  };
}

/**
 * The changes of `now` against what the model was told: changed and added
 * sections in `now`'s order, then the removed ones in the order the model
 * got them.
 */
export function sectionChanges(
  told: Told,
  now: readonly HeldSection[],
): SectionChange[] {
  const changes: SectionChange[] = [];
  const present = new Set<string>();
  for (const section of now) {
    present.add(section.name);
    const before = told.sections.get(section.name);
    if (before === section.text) continue;
    changes.push({
      kind: before === undefined ? "added" : "changed",
      name: section.name,
      text: section.text,
    });
  }
  for (const name of told.sections.keys()) {
    if (!present.has(name)) changes.push({ kind: "removed", name });
  }
  return changes;
}

/** What the model knows once `changes` are sent. */
export function toldAfter(told: Told, changes: readonly SectionChange[]): Told {
  if (changes.length === 0) return told;
  const sections = new Map(told.sections);
  for (const change of changes) {
    if (change.kind === "removed") sections.delete(change.name);
    else sections.set(change.name, change.text!);
  }
  return { head: told.head, sections };
}

/**
 * `assembly` with the head's sections in place of its own: templates that
 * render to exactly the held texts, so the form builds the same system
 * prompt the model was given first.
 */
export function heldAssembly(
  assembly: PromptAssembly,
  head: readonly HeldSection[],
): PromptAssembly {
  let sections = HELD.get(head);
  if (sections === undefined) {
    sections = head.map((section): AssembledSection => ({
      name: section.name,
      order: section.order,
      text: literalTemplate(section.text),
      ...(section.cacheBreakpoint === true ? { cacheBreakpoint: true } : {}),
      ...(section.stability === undefined
        ? {}
        : { stability: section.stability }),
    }));
    HELD.set(head, Object.freeze(sections));
  }
  // The same held sections, step after step: the head's input sees them
  // as the same (`head_memo.ts`).
  return { ...assembly, sections: sections as AssembledSection[] };
}

/** The held sections as an assembly's, per head (the head never changes). */
const HELD = new WeakMap<readonly HeldSection[], readonly AssembledSection[]>();

/**
 * A template rendering to `text` itself: every `{{` made literal (a run of
 * n backslashes before it doubled, plus one: SPEC 8.10's escape).
 */
export function literalTemplate(text: string): string {
  return text.replace(
    /(\\*)\{\{/g,
    (_match, run: string) => `${run}${run}\\{{`,
  );
}

/** The text telling the model of one change (facts, not orders). */
export function changeText(change: SectionChange): string {
  const name = JSON.stringify(change.name);
  switch (change.kind) {
    case "changed":
      return `The system prompt's section ${name} now reads:\n\n${change.text}`;
    case "added":
      return `The system prompt has a new section ${name}:\n\n${change.text}`;
    case "removed":
      return `The system prompt's section ${name} no longer applies.`;
  }
}
