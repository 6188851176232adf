/**
 * `lintCache`: what in an assembly's layout costs prompt-cache hits.
 * Pure: reads the assembly once, renders each section once.
 *
 * @module
 */

import { quote, SystemPromptError } from "../errors.ts";
import { readingAssembly } from "../render/assembly_shape.ts";
import { renderSections } from "../render/interpolate.ts";
import type { AssembledSection, PromptAssembly } from "../types.ts";
import { WIRE_TOOL_NAME } from "../shared/tool_name.ts";
import { volatileMatches } from "./volatile_text.ts";

/**
 * The code of a {@linkcode CacheFinding}.
 *
 * @example
 * ```ts
 * import type { CacheFindingCode } from "@rxprompt/system-prompt";
 *
 * const ignored: CacheFindingCode[] = ["VOLATILE_CONTENT"];
 * ```
 */
export type CacheFindingCode =
  | "VOLATILE_CONTENT"
  | "VOLATILE_BEFORE_STABLE"
  | "VOLATILE_IN_SYSTEM"
  | "BREAKPOINT_ON_VOLATILE"
  | "INVALID_TOOL_NAME"
  | "DEFERRED_TOOL_IN_SYSTEM";

/**
 * One finding of {@linkcode lintCache}.
 *
 * @example
 * ```ts
 * import type { CacheFinding } from "@rxprompt/system-prompt";
 *
 * const finding: CacheFinding = {
 *   code: "VOLATILE_IN_SYSTEM",
 *   severity: "warning",
 *   entry: "section:memory",
 *   message: "Section \"memory\" is volatile ...",
 * };
 * ```
 */
export interface CacheFinding {
  /** What was found; stable, match on it. */
  code: CacheFindingCode;
  /** `error` only for what an API would reject (`INVALID_TOOL_NAME`). */
  severity: "warning" | "error";
  /** The entry, spelled `section:NAME` or `tool:NAME`. */
  entry: string;
  /** What was found and what to do, for people. */
  message: string;
}

/**
 * Options of {@linkcode lintCache}.
 *
 * @example
 * ```ts
 * import type { LintCacheOptions } from "@rxprompt/system-prompt";
 *
 * const options: LintCacheOptions = { ignore: ["VOLATILE_CONTENT"] };
 * ```
 */
export interface LintCacheOptions {
  /** Codes not to report. */
  ignore?: readonly CacheFindingCode[];
}

type Stability = "stable" | "agent" | "volatile";

/** A tool or section as the lint reads it. */
interface Entry {
  readonly entry: string;
  readonly name: string;
  readonly stability: Stability;
  /** What `VOLATILE_CONTENT` looks at. */
  readonly text: string;
  /** A section that renders empty adds nothing to the wire. */
  readonly empty: boolean;
  readonly cacheBreakpoint: boolean;
}

/**
 * Finds what in `assembly` costs prompt-cache hits, in wire order (tools,
 * then sections; for one entry, in the order of the codes below). Stability
 * is the assembly's: a section's `stability` and `assembly.toolStability`
 * (absent is `stable`).
 *
 * - `VOLATILE_CONTENT` (warning): text that looks volatile in a non-volatile
 *   section's rendered text or a non-volatile tool's description or
 *   schema: UUIDs, ISO-8601 dates and times, epoch timestamps, temporary
 *   paths, hex ids of 16+ characters, URLs with a query string.
 * - `VOLATILE_BEFORE_STABLE` (warning): a volatile tool before a less
 *   volatile tool, or a volatile section before a less volatile non-empty
 *   section (an `agent` section before stable ones is not reported).
 * - `VOLATILE_IN_SYSTEM` (warning): a volatile section in the system prompt;
 *   register it with `runtimeContext()` instead.
 * - `BREAKPOINT_ON_VOLATILE` (warning): `cacheBreakpoint` on a volatile
 *   section.
 * - `INVALID_TOOL_NAME` (error): a name the adapters reject (not
 *   `^[a-zA-Z0-9_-]{1,64}$`), of a listed or a deferred tool.
 * - `DEFERRED_TOOL_IN_SYSTEM` (warning): a section whose rendered text
 *   names a deferred tool (`assembly.deferredTools`) as a whole word: a
 *   deferred tool's name never enters the system prompt (a "deferred
 *   tools available" list there changes the prompt with every change of
 *   the deferred set); the model finds deferred tools by searching.
 *
 * Runs in time linear in the assembly's size.
 *
 * @param assembly an assembly, such as `assemble()` resolves to
 * @param options `ignore`: codes not to report
 * @returns the findings, `[]` when there are none
 * @throws {SystemPromptError} what `renderPrompt` throws for an assembly
 * that cannot be rendered; `INVALID_ASSEMBLY` for tools or stabilities that
 * are malformed; `INVALID_CONFIG` for bad options
 *
 * @example
 * ```ts
 * import { lintCache } from "@rxprompt/system-prompt";
 *
 * const findings = lintCache({
 *   sections: [
 *     { name: "memory", order: 10, text: "Notes.", stability: "volatile" },
 *     { name: "rules", order: 20, text: "Be brief. Build 5f2b9c0e1d3a4b6c." },
 *   ],
 *   tools: [{ name: "files.read", description: "Read a file.", parameters: {} }],
 *   variables: {},
 * });
 * console.log(findings.map((finding) => `${finding.code} ${finding.entry}`));
 * // [
 * //   "INVALID_TOOL_NAME tool:files.read",
 * //   "VOLATILE_BEFORE_STABLE section:memory",
 * //   "VOLATILE_IN_SYSTEM section:memory",
 * //   "VOLATILE_CONTENT section:rules",
 * // ]
 * ```
 */
export function lintCache(
  assembly: PromptAssembly,
  options: LintCacheOptions = {},
): CacheFinding[] {
  const ignore = readIgnore(options);
  const { tools, deferred, sections } = readingAssembly(
    () => readEntries(assembly),
    "lintCache",
  );
  const findings: CacheFinding[] = [];
  for (const list of [tools, deferred, sections]) {
    const isTools = list !== sections;
    // The nearest later non-empty entry that is not volatile, for
    // VOLATILE_BEFORE_STABLE (only volatile entries are reported).
    const nextSteady: (string | undefined)[] = new Array(list.length + 1);
    for (let index = list.length - 1; index >= 0; index--) {
      const entry = list[index];
      nextSteady[index] = !entry.empty && entry.stability !== "volatile"
        ? entry.name
        : nextSteady[index + 1];
    }
    for (let index = 0; index < list.length; index++) {
      const entry = list[index];
      const later = nextSteady[index + 1];
      for (const finding of lintEntry(entry, isTools, later)) {
        if (!ignore.has(finding.code)) findings.push(finding);
      }
      if (!isTools && deferred.length > 0) {
        const named = deferredNamed(entry, deferred);
        if (named !== undefined && !ignore.has(named.code)) {
          findings.push(named);
        }
      }
    }
  }
  return findings;
}

/** The most deferred tools a `DEFERRED_TOOL_IN_SYSTEM` message names. */
const NAMED_AT_MOST = 5;

/**
 * `DEFERRED_TOOL_IN_SYSTEM` when `section`'s rendered text holds the name
 * of a deferred tool as a whole word (a run of the wire name's characters),
 * found in one pass over the text.
 */
function deferredNamed(
  section: Entry,
  deferred: readonly Entry[],
): CacheFinding | undefined {
  if (section.empty) return undefined;
  const names = new Set(deferred.map((entry) => entry.name));
  const found: string[] = [];
  for (const [word] of section.text.matchAll(/[a-zA-Z0-9_-]+/g)) {
    if (names.has(word) && !found.includes(word)) found.push(word);
  }
  if (found.length === 0) return undefined;
  const shown = found.slice(0, NAMED_AT_MOST).map(quote).join(", ") +
    (found.length > NAMED_AT_MOST
      ? ` and ${found.length - NAMED_AT_MOST} more`
      : "");
  return warning(
    "DEFERRED_TOOL_IN_SYSTEM",
    section,
    `Section ${quote(section.name)} names the deferred ` +
      `${found.length === 1 ? "tool" : "tools"} ${shown}: a deferred tool's ` +
      `name or description never goes in the system prompt, which would ` +
      `then change with every change of the deferred tools and lose the ` +
      `cached prefix. Remove it; the model finds deferred tools through the ` +
      `tool search, and a tool it must always see belongs in a source that ` +
      `is not deferred.`,
  );
}

function lintEntry(
  entry: Entry,
  isTool: boolean,
  later: string | undefined,
): CacheFinding[] {
  const found: CacheFinding[] = [];
  const noun = isTool ? "Tool" : "Section";
  const what = `${noun} ${quote(entry.name)}`;
  const volatile = entry.stability === "volatile";
  if (!volatile) {
    const matches = volatileMatches(entry.text);
    if (matches.length > 0) {
      const where = isTool ? "description or schema" : "text";
      found.push(warning(
        "VOLATILE_CONTENT",
        entry,
        `${what} is ${entry.stability} but its ${where} holds ` +
          matches.map(({ what, sample }) => `${what} (${quote(sample)})`)
            .join(", ") +
          `: a value that changes rewrites the cached prefix from here on. ` +
          `Move it to a variable or runtime context, or declare the ` +
          `${isTool ? "tools" : "section"} volatile.`,
      ));
    }
  }
  if (volatile && later !== undefined) {
    found.push(warning(
      "VOLATILE_BEFORE_STABLE",
      entry,
      `${what} is volatile and comes before the less volatile ${
        isTool ? "tool" : "section"
      } ${quote(later)}: each change of it rewrites everything after it. ${
        isTool
          ? "Let the default tool order place it (by stability), or move it " +
            "after the stable tools in toolOrder."
          : "Give it a later order than the stable sections."
      }`,
    ));
  }
  if (volatile && !isTool) {
    found.push(warning(
      "VOLATILE_IN_SYSTEM",
      entry,
      `${what} is volatile, in the system prompt: each change rewrites the ` +
        `system prompt after it and the whole conversation. Register it ` +
        `with runtimeContext() and send it after the last conversation ` +
        `item (runtimeContextUpdate).`,
    ));
  }
  if (volatile && entry.cacheBreakpoint) {
    found.push(warning(
      "BREAKPOINT_ON_VOLATILE",
      entry,
      `${what} is volatile and marked cacheBreakpoint: a cache entry ending ` +
        `there is written every step and rarely read. Mark a stable ` +
        `section instead.`,
    ));
  }
  if (isTool && !WIRE_TOOL_NAME.test(entry.name)) {
    found.push({
      code: "INVALID_TOOL_NAME",
      severity: "error",
      entry: entry.entry,
      message: `${what} does not match ^[a-zA-Z0-9_-]{1,64}$, which the ` +
        `OpenAI and Anthropic APIs require; every adapter rejects it. ` +
        `Rename it (for example with "_" for ".").`,
    });
  }
  return found;
}

function warning(
  code: CacheFindingCode,
  entry: Entry,
  message: string,
): CacheFinding {
  return { code, severity: "warning", entry: entry.entry, message };
}

function readIgnore(options: unknown): Set<string> {
  const bad = (detail: string, cause?: unknown): SystemPromptError =>
    new SystemPromptError(
      "INVALID_CONFIG",
      `lintCache's options ${detail}; they are an object { ignore?: ` +
        `CacheFindingCode[] }.`,
      cause === undefined ? undefined : { cause },
    );
  if (typeof options !== "object" || options === null) {
    throw bad(`are ${quote(options)}`);
  }
  let ignore: unknown;
  try {
    ignore = (options as LintCacheOptions).ignore;
    if (ignore === undefined) return new Set();
    if (!Array.isArray(ignore)) throw bad(`have ignore ${quote(ignore)}`);
    const codes = [...ignore];
    for (const code of codes) {
      if (typeof code !== "string") throw bad(`ignore ${quote(code)}`);
    }
    return new Set(codes as string[]);
  } catch (error) {
    if (error instanceof SystemPromptError) throw error;
    throw bad("could not be read", error);
  }
}

function invalid(message: string): SystemPromptError {
  return new SystemPromptError("INVALID_ASSEMBLY", `lintCache: ${message}`);
}

function stabilityOf(value: unknown, where: string): Stability {
  if (value === undefined || value === "stable") return "stable";
  if (value === "agent" || value === "volatile") return value;
  throw invalid(
    `${where} has stability ${quote(value)}; a stability is "agent", ` +
      `"volatile", or absent (stable).`,
  );
}

function readEntries(
  assembly: PromptAssembly,
): { tools: Entry[]; deferred: Entry[]; sections: Entry[] } {
  if (typeof assembly !== "object" || assembly === null) {
    throw invalid(
      `received ${quote(assembly)} instead of an assembly { sections, ` +
        `tools, variables }.`,
    );
  }
  const sections: readonly AssembledSection[] = assembly.sections;
  const rendered = renderSections(sections, assembly.variables);
  const sectionEntries = sections.map((section, index): Entry => {
    const name = String(section.name);
    return {
      entry: `section:${name}`,
      name,
      stability: stabilityOf(section.stability, `section ${quote(name)}`),
      text: rendered[index],
      empty: rendered[index] === "",
      cacheBreakpoint: section.cacheBreakpoint === true,
    };
  });
  const tools: unknown = assembly.tools;
  if (!Array.isArray(tools)) {
    throw invalid(`the tools are ${quote(tools)}; expected an array.`);
  }
  const stabilities: unknown = assembly.toolStability;
  if (
    stabilities !== undefined &&
    (typeof stabilities !== "object" || stabilities === null)
  ) {
    throw invalid(
      `toolStability is ${quote(stabilities)}; expected an object of ` +
        `stabilities by tool name.`,
    );
  }
  const toolEntries = tools.map((tool: unknown, index): Entry => {
    if (typeof tool !== "object" || tool === null) {
      throw invalid(`tool ${index} is ${quote(tool)}; expected an object.`);
    }
    const { name, description, parameters } = tool as Record<string, unknown>;
    if (typeof name !== "string") {
      throw invalid(`tool ${index} has the name ${quote(name)}.`);
    }
    const own = stabilities !== undefined &&
        Object.hasOwn(stabilities, name)
      ? (stabilities as Record<string, unknown>)[name]
      : undefined;
    return {
      entry: `tool:${name}`,
      name,
      stability: stabilityOf(own, `tool ${quote(name)}`),
      text: `${typeof description === "string" ? description : ""}\n${
        JSON.stringify(parameters) ?? ""
      }`,
      empty: false,
      cacheBreakpoint: false,
    };
  });
  return {
    tools: toolEntries,
    deferred: readDeferred(assembly.deferredTools),
    sections: sectionEntries,
  };
}

/** The deferred tools' names, as entries (only their names are linted). */
function readDeferred(deferred: unknown): Entry[] {
  if (deferred === undefined) return [];
  if (!Array.isArray(deferred)) {
    throw invalid(
      `the deferred tools are ${quote(deferred)}; expected an array.`,
    );
  }
  return deferred.map((tool: unknown, index): Entry => {
    const name = typeof tool === "object" && tool !== null
      ? (tool as { name?: unknown }).name
      : undefined;
    if (typeof name !== "string") {
      throw invalid(
        `deferred tool ${index} is ${quote(tool)}; expected a tool with a ` +
          `string name.`,
      );
    }
    // Stable with no text: only the name rule applies to it.
    return {
      entry: `tool:${name}`,
      name,
      stability: "stable",
      text: "",
      empty: false,
      cacheBreakpoint: false,
    };
  });
}
