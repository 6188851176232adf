/**
 * `renderPromptBlocks`: the rendered prompt cut at its cache breakpoints.
 *
 * Pure: no state, no RxJS. Built on {@linkcode renderPrompt}, one section at
 * a time, so a block's text is byte-for-byte the slice of the full prompt it
 * stands for.
 *
 * @module
 */

import { quote, SystemPromptError } from "../errors.ts";
import type { AssembledSection, PromptAssembly } from "../types.ts";
import { renderPrompt } from "./prompt.ts";

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
 * `cacheBreakpoint: true`. An all-empty prompt gives `[]`. Rendering errors
 * are `renderPrompt`'s, naming the section.
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
  const blocks: PromptBlock[] = [];
  let current: PromptBlock = { text: "", sections: [], cacheBreakpoint: true };
  for (const section of sectionsOf(assembly)) {
    const text = renderSection(section, assembly.variables);
    if (text !== "") {
      if (current.text !== "") current.text += SEPARATOR;
      else if (blocks.length > 0) blocks[blocks.length - 1].text += SEPARATOR;
      current.text += text;
      current.sections.push(section.name);
    }
    if (section.cacheBreakpoint === true && current.text !== "") {
      blocks.push(current);
      current = { text: "", sections: [], cacheBreakpoint: true };
    }
  }
  if (current.text !== "") blocks.push(current);
  return blocks;
}

/** The assembly's sections, each checked to be an object. */
function sectionsOf(assembly: PromptAssembly): readonly AssembledSection[] {
  const sections: unknown = assembly?.sections;
  if (!Array.isArray(sections)) {
    throw new SystemPromptError(
      "INVALID_SECTION",
      `An assembly's sections must be an array of { name, order, text }; ` +
        `got ${quote(sections)}.`,
    );
  }
  for (let index = 0; index < sections.length; index++) {
    const section: unknown = sections[index];
    if (typeof section !== "object" || section === null) {
      throw new SystemPromptError(
        "INVALID_SECTION",
        `Section ${index} of the assembly is ${quote(section)}; every ` +
          `section must be an object { name, order, text }.`,
      );
    }
  }
  return sections;
}

/** One section through `renderPrompt`, with the assembly's variables. */
function renderSection(
  section: AssembledSection,
  variables: PromptAssembly["variables"],
): string {
  return renderPrompt({ sections: [section], tools: [], variables });
}
