/**
 * `renderPromptBlocks`: the rendered prompt cut at its cache breakpoints.
 *
 * Pure: no state, no RxJS. Built on the engine of `renderPrompt`, which
 * renders each section on its own, so a block's text is byte-for-byte the
 * slice of the full prompt it stands for.
 *
 * @module
 */

import type { PromptAssembly, Stability } from "../types.ts";
import { quote, readGuarded, SystemPromptError } from "../errors.ts";
import { rankOf, STABILITIES } from "../shared/stability.ts";
import {
  type AssemblyParts,
  entriesOf,
  readAssembly,
  readingAssembly,
} from "./assembly_shape.ts";
import { renderSections } from "./interpolate.ts";

/**
 * One cacheable piece of the system prompt: the text from the previous cut
 * up to the next (a breakpoint section, a stability boundary, or the end of
 * the prompt).
 *
 * @example
 * ```ts
 * import type { PromptBlock } from "@rxprompt/system-prompt";
 *
 * const block: PromptBlock = {
 *   text: "You are a coding agent.\n\n",
 *   sections: ["harness:identity"],
 *   cacheBreakpoint: true,
 *   stability: "stable",
 * };
 * ```
 */
export interface PromptBlock {
  /** The block's rendered text; a cut keeps the `"\n\n"` separator here. */
  text: string;
  /** The non-empty sections rendered into this block, in order. */
  sections: string[];
  /**
   * Whether a provider should cache up to the end of this block: with
   * `breakpoints: "auto"`, `true` unless a section of the block is volatile
   * (caching it would pay the write price every step); with `"explicit"`,
   * always `true`.
   */
  cacheBreakpoint: boolean;
  /**
   * The most volatile stability of the block's sections; present on
   * `breakpoints: "auto"` blocks only.
   */
  stability?: Stability;
}

/**
 * Options of {@linkcode renderPromptBlocks}.
 *
 * @example
 * ```ts
 * import type { PromptBlocksOptions } from "@rxprompt/system-prompt";
 *
 * const zeroTwo: PromptBlocksOptions = { breakpoints: "explicit" };
 * ```
 */
export interface PromptBlocksOptions {
  /**
   * `"auto"` (default): cut after every `cacheBreakpoint` section and at
   * every stability boundary. `"explicit"`: cut after the `cacheBreakpoint`
   * sections only, every block `cacheBreakpoint: true` (0.2's blocks).
   */
  breakpoints?: "auto" | "explicit";
}

const SEPARATOR = "\n\n";

/**
 * Renders an assembly as blocks cut after every section with
 * `cacheBreakpoint: true` and, by default, at every stability boundary
 * (between two non-empty sections of different stability, SPEC 8.3).
 *
 * Concatenating the blocks' texts gives exactly `renderPrompt(assembly)`: the
 * blank-line separator stays at the end of the block before a cut. Empty
 * sections vanish as in `renderPrompt` and count for no boundary; a
 * breakpoint on an empty section still cuts, unless the cut would leave an
 * empty block. The end of the prompt is always a cut. A block carries the
 * most volatile `stability` of its sections and `cacheBreakpoint: true`
 * unless one of them is volatile. With `breakpoints: "explicit"`, 0.2's
 * blocks: cuts at breakpoint sections only, each block
 * `cacheBreakpoint: true`, no `stability`. An all-empty prompt gives `[]`.
 * Errors are `renderPrompt`'s: a rendering error names the section; a
 * non-assembly, a `sections` that is not an array of objects, `variables`
 * that are not an object, a section `stability` that is not one, and
 * whatever a getter or Proxy of the assembly throws (as `cause`) are
 * `INVALID_ASSEMBLY`; a bad option is `INVALID_CONFIG`.
 *
 * @param assembly the sections (in render order) and variables to render
 * @param options `breakpoints`: `"auto"` (default) or `"explicit"`
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
export function renderPromptBlocks(
  assembly: PromptAssembly,
  options?: PromptBlocksOptions,
): PromptBlock[] {
  const auto = autoBreakpoints(
    readGuarded(
      () => optionsObject(options, "renderPromptBlocks")?.breakpoints,
      "INVALID_CONFIG",
      () =>
        `renderPromptBlocks could not read its options (a getter or Proxy ` +
        `threw); pass plain options, such as { breakpoints: "auto" }.`,
    ),
  );
  return readingAssembly(
    () =>
      blocksOf(readAssembly(assembly, "renderPromptBlocks", SECTIONS), {
        auto,
      }),
    "renderPromptBlocks",
  );
}

/** `options` checked to be an object, or absent. */
function optionsObject(
  options: unknown,
  entry: string,
): Record<string, unknown> | undefined {
  if (options === undefined) return undefined;
  if (typeof options === "object" && options !== null) {
    return options as Record<string, unknown>;
  }
  throw new SystemPromptError(
    "INVALID_CONFIG",
    `${entry}'s options must be an object; got ${quote(options)}.`,
  );
}

/**
 * Whether a `breakpoints` option asks for automatic cuts; `INVALID_CONFIG`
 * unless it is `"auto"`, `"explicit"` or absent.
 */
export function autoBreakpoints(value: unknown): boolean {
  if (value === undefined || value === "auto") return true;
  if (value === "explicit") return false;
  throw new SystemPromptError(
    "INVALID_CONFIG",
    `breakpoints is ${quote(value)}; it must be "auto" (the default: cut ` +
      `at the breakpoint sections and at every stability boundary) or ` +
      `"explicit" (0.2's blocks: the breakpoint sections only).`,
  );
}

const SECTIONS = ["sections"] as const;

/**
 * {@linkcode renderPromptBlocks} of an assembly already read. Internal: for
 * entry points that read the assembly once and guard the whole call
 * themselves. Each section is read once: its text rendered with the others
 * in one pass (each variable read once, as in `renderPrompt`), then its
 * name, breakpoint and stability.
 */
export function blocksOf(
  parts: AssemblyParts,
  { auto }: { auto: boolean },
): PromptBlock[] {
  const sections = entriesOf(parts.sections, "sections");
  const texts = renderSections(sections, parts.variables);
  const blocks: PromptBlock[] = [];
  let current: PromptBlock = { text: "", sections: [], cacheBreakpoint: true };
  let rank = 0;
  for (let index = 0; index < sections.length; index++) {
    const { name, cacheBreakpoint, stability } = sections[index];
    const text = texts[index];
    if (text !== "") {
      const sectionRank = auto ? rankOfSection(stability, index) : 0;
      if (current.text !== "" && sectionRank !== rank) {
        blocks.push(auto ? closed(current, rank) : current);
        current = { text: "", sections: [], cacheBreakpoint: true };
      }
      rank = sectionRank;
      if (current.text !== "") current.text += SEPARATOR;
      else if (blocks.length > 0) blocks[blocks.length - 1].text += SEPARATOR;
      current.text += text;
      current.sections.push(name);
    }
    if (cacheBreakpoint === true && current.text !== "") {
      blocks.push(auto ? closed(current, rank) : current);
      current = { text: "", sections: [], cacheBreakpoint: true };
    }
  }
  if (current.text !== "") blocks.push(auto ? closed(current, rank) : current);
  return blocks;
}

/** An automatic block, ended at a cut: its stability, and no marker if volatile. */
function closed(block: PromptBlock, rank: number): PromptBlock {
  block.cacheBreakpoint = rank !== 2;
  block.stability = STABILITIES[rank];
  return block;
}

/** A section's stability rank; `INVALID_ASSEMBLY` for a value that is none. */
function rankOfSection(stability: unknown, index: number): number {
  if (stability === undefined) return 0;
  const rank = rankOf(stability);
  if (rank !== -1) return rank;
  throw new SystemPromptError(
    "INVALID_ASSEMBLY",
    `The assembly's sections[${index}] has stability ${quote(stability)}; ` +
      `an assembled section's stability is "agent" or "volatile", or left ` +
      `out (stable).`,
  );
}
