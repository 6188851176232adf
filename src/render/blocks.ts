/**
 * `renderPromptBlocks`: the rendered prompt cut at its cache breakpoints.
 *
 * Pure: no state, no RxJS. Built on the engine of `renderPrompt`, which
 * renders each section on its own, so a block's text is byte-for-byte the
 * slice of the full prompt it stands for.
 *
 * @module
 */

import type { PromptAssembly } from "../types.ts";
import {
  type AssemblyParts,
  entriesOf,
  readAssembly,
  readingAssembly,
} from "./assembly_shape.ts";
import { renderSections } from "./interpolate.ts";

/**
 * One cacheable piece of the system prompt: the text from the previous cut
 * up to and including a breakpoint section (or the end of the prompt).
 *
 * @example
 * ```ts
 * import type { PromptBlock } from "@rxprompt/system-prompt";
 *
 * const block: PromptBlock = {
 *   text: "You are a coding agent.\n\n",
 *   sections: ["harness:identity"],
 *   cacheBreakpoint: true,
 * };
 * ```
 */
export interface PromptBlock {
  /** The block's rendered text; a cut keeps the `"\n\n"` separator here. */
  text: string;
  /** The non-empty sections rendered into this block, in order. */
  sections: string[];
  /** Always `true`: every block ends at a point a provider may cache up to. */
  cacheBreakpoint: boolean;
}

const SEPARATOR = "\n\n";

/**
 * Renders an assembly as blocks cut after every section with
 * `cacheBreakpoint: true`.
 *
 * Concatenating the blocks' texts gives exactly `renderPrompt(assembly)`: the
 * blank-line separator stays at the end of the block before a cut. Empty
 * sections vanish as in `renderPrompt`; a breakpoint on an empty section
 * still cuts, unless the cut would leave an empty block. The end of the
 * prompt is always a cache point, so every block has
 * `cacheBreakpoint: true`. An all-empty prompt gives `[]`. Errors are
 * `renderPrompt`'s: a rendering error names the section; a non-assembly, a
 * `sections` that is not an array of objects, `variables` that are not an
 * object, and whatever a getter or Proxy of the assembly throws (as `cause`)
 * are `INVALID_ASSEMBLY`.
 *
 * @param assembly the sections (in render order) and variables to render
 * @returns the blocks, none empty, every non-empty section in exactly one
 *
 * @example Cache the stable part of the prompt
 * ```ts
 * import { renderPromptBlocks } from "@rxprompt/system-prompt";
 *
 * const blocks = renderPromptBlocks({
 *   sections: [
 *     { name: "identity", order: -100, text: "You are a coding agent." },
 *     { name: "rules", order: 50, text: "Be brief.", cacheBreakpoint: true },
 *     { name: "today", order: 900, text: "Model: {{model}}." },
 *   ],
 *   tools: [],
 *   variables: { model: "example-model" },
 * });
 * console.log(blocks.map((block) => block.text));
 * // ["You are a coding agent.\n\nBe brief.\n\n", "Model: example-model."]
 * ```
 */
export function renderPromptBlocks(assembly: PromptAssembly): PromptBlock[] {
  return readingAssembly(
    () => blocksOf(readAssembly(assembly, "renderPromptBlocks", SECTIONS)),
    "renderPromptBlocks",
  );
}

const SECTIONS = ["sections"] as const;

/**
 * {@linkcode renderPromptBlocks} of an assembly already read. Internal: for
 * entry points that read the assembly once and guard the whole call
 * themselves. Each section is read once: its text rendered with the others
 * in one pass (each variable read once, as in `renderPrompt`), then its
 * name and breakpoint.
 */
export function blocksOf(parts: AssemblyParts): PromptBlock[] {
  const sections = entriesOf(parts.sections, "sections");
  const texts = renderSections(sections, parts.variables);
  const blocks: PromptBlock[] = [];
  let current: PromptBlock = { text: "", sections: [], cacheBreakpoint: true };
  for (let index = 0; index < sections.length; index++) {
    const { name, cacheBreakpoint } = sections[index];
    const text = texts[index];
    if (text !== "") {
      if (current.text !== "") current.text += SEPARATOR;
      else if (blocks.length > 0) blocks[blocks.length - 1].text += SEPARATOR;
      current.text += text;
      current.sections.push(name);
    }
    if (cacheBreakpoint === true && current.text !== "") {
      blocks.push(current);
      current = { text: "", sections: [], cacheBreakpoint: true };
    }
  }
  if (current.text !== "") blocks.push(current);
  return blocks;
}
