/**
 * `renderPrompt` and `renderRuntimeContext`: the strict, single-pass
 * `{{name}}` interpolator, built on `renderSections`, the per-entry
 * rendering other renderers share.
 *
 * Pure: no RxJS, and no state but a bounded cache of parsed templates that
 * changes no result. Runs in time linear in the total text length on every
 * input, including adversarial ones such as megabytes of `{{`.
 *
 * @module
 */

import type { PromptAssembly } from "../types.ts";
import {
  type AssemblyParts,
  readAssembly,
  readingAssembly,
} from "./assembly_shape.ts";
import { renderJoined, targetOf } from "./interpolate.ts";

export { VARIABLE_NAME_PATTERN } from "./reference_errors.ts";

/**
 * Renders an assembly into the exact system prompt text.
 *
 * Each section is interpolated in the given order; sections that render to
 * `""` are dropped and the rest are joined with one blank line (`"\n\n"`).
 * A reference is `{{name}}` with `name` matching `^[a-z][a-z0-9_]*$` and an
 * own key of `assembly.variables` holding a string. Substituted values are
 * never scanned again. `\{{` is a literal `{{`: a run of n backslashes right
 * before `{{` renders ⌊n/2⌋ of them, and the `{{` is a reference only when n
 * is even; any other backslash is plain text. Anything else fails loud with a
 * {@linkcode SystemPromptError} naming the section:
 *
 * - `MALFORMED_REFERENCE`: `{{ model }}`, `{{}}`, `{{{model}}}`, or a `{{`
 *   that does not start a complete group while a `}}` follows it (a `{{` with
 *   no `}}` anywhere after it, and a lone `}}`, are ordinary text);
 * - `UNKNOWN_VARIABLE`: the name is not a registered variable;
 * - `VARIABLE_WITHOUT_VALUE`: the variable's value is `undefined`;
 * - `INVALID_VARIABLE_VALUE` / `INVALID_SECTION`: a value or a section text
 *   that is not a string;
 * - `INVALID_ASSEMBLY`: the assembly is not an object, `sections` is not an
 *   array, an entry of it is not an object, or `variables` is not an object.
 *
 * @param assembly the sections (in render order) and variables to render
 * @returns the prompt text
 *
 * @example
 * ```ts
 * import { renderPrompt } from "@rxprompt/system-prompt";
 *
 * const prompt = renderPrompt({
 *   sections: [
 *     { name: "identity", order: -100, text: "You are a coding agent." },
 *     { name: "persona", order: 0, text: "" },
 *     { name: "facts", order: 10, text: "Model: {{model}}. Literal: {{ is fine." },
 *   ],
 *   tools: [],
 *   variables: { model: "example-model" },
 * });
 * console.log(prompt);
 * // You are a coding agent.
 * //
 * // Model: example-model. Literal: {{ is fine.
 * ```
 */
export function renderPrompt(assembly: PromptAssembly): string {
  return readingAssembly(
    () => promptOf(readAssembly(assembly, "renderPrompt", SECTIONS)),
    "renderPrompt",
  );
}

/**
 * Renders an assembly's runtime context: the volatile facts (date, git
 * status, open files) a harness sends as a user-role message so that the
 * system prompt stays byte-stable and cacheable.
 *
 * The rules are exactly those of {@linkcode renderPrompt}, applied to
 * `assembly.runtimeContext` instead of `assembly.sections`, with the same
 * variables and the same error codes (messages name the runtime context
 * entry). An assembly without the key renders as if it were `[]`; no entry,
 * or only entries that render to `""`, give `""`.
 *
 * @param assembly the runtime context entries (in render order) and variables
 * @returns the runtime context text, `""` when there is none
 *
 * @example
 * ```ts
 * import { renderPrompt, renderRuntimeContext } from "@rxprompt/system-prompt";
 *
 * const assembly = {
 *   sections: [{ name: "persona", order: 0, text: "You are a coding agent." }],
 *   tools: [],
 *   variables: { date: "2026-12-02" },
 *   runtimeContext: [{ name: "date", order: 0, text: "Today is {{date}}." }],
 * };
 * console.log(renderPrompt(assembly)); // "You are a coding agent."
 * console.log(renderRuntimeContext(assembly)); // "Today is 2026-12-02."
 * console.log(renderRuntimeContext({ ...assembly, runtimeContext: undefined })); // ""
 * ```
 */
export function renderRuntimeContext(assembly: PromptAssembly): string {
  return runtimeContextFor(assembly, "renderRuntimeContext");
}

/**
 * {@linkcode renderRuntimeContext}, its errors naming `renderer` (the
 * public function, and the argument when it takes two). Internal.
 */
export function runtimeContextFor(
  assembly: PromptAssembly,
  renderer: string,
): string {
  return readingAssembly(
    () => runtimeContextOf(readAssembly(assembly, renderer, RUNTIME_CONTEXT)),
    renderer,
  );
}

const SECTIONS = ["sections"] as const;
const RUNTIME_CONTEXT = ["runtimeContext"] as const;

/**
 * {@linkcode renderPrompt} of an assembly already read. Internal: for entry
 * points that read the assembly once and guard the whole call themselves.
 */
export function promptOf(parts: AssemblyParts): string {
  return renderJoined(
    targetOf({
      sections: parts.sections,
      variables: parts.variables,
      list: "sections",
    }),
  );
}

/** {@linkcode renderRuntimeContext} of an assembly already read. Internal. */
export function runtimeContextOf(parts: AssemblyParts): string {
  return renderJoined(
    targetOf({
      sections: parts.runtimeContext,
      variables: parts.variables,
      list: "runtimeContext",
    }),
  );
}
