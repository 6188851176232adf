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

import { quote, SystemPromptError } from "../errors.ts";
import type { AssembledSection, PromptAssembly } from "../types.ts";
import type { RenderedList } from "./assembly_shape.ts";
import {
  checkAssembly,
  describeType,
  invalidEntry,
  invalidList,
  invalidVariables,
  readingAssembly,
} from "./assembly_shape.ts";
import { templateOf } from "./template_cache.ts";

/** What a variable name must look like, everywhere in the module. */
export const VARIABLE_NAME_PATTERN: RegExp = /^[a-z][a-z0-9_]*$/;

const EXCERPT_LENGTH = 40;

type Variables = PromptAssembly["variables"];

/** Options of {@linkcode renderSections}. */
export interface RenderSectionsOptions {
  /** The assembly key the entries come from, for messages (default `"sections"`). */
  list?: RenderedList;
}

/**
 * Renders an assembly into the exact system prompt text.
 *
 * Each section is interpolated in the given order; sections that render to
 * `""` are dropped and the rest are joined with one blank line (`"\n\n"`).
 * A reference is `{{name}}` with `name` matching `^[a-z][a-z0-9_]*$` and an
 * own key of `assembly.variables` holding a string. Substituted values are
 * never scanned again. Anything else fails loud with a
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
  return readingAssembly(() => {
    checkAssembly(assembly, "renderPrompt");
    return renderJoined(
      targetOf({
        sections: assembly.sections,
        variables: assembly.variables,
        list: "sections",
      }),
    );
  }, "renderPrompt");
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
  return readingAssembly(() => {
    checkAssembly(assembly, "renderRuntimeContext");
    const present = assembly.runtimeContext;
    const entries = present === undefined ? [] : present;
    return renderJoined(
      targetOf({
        sections: entries,
        variables: assembly.variables,
        list: "runtimeContext",
      }),
    );
  }, "renderRuntimeContext");
}

/**
 * Interpolates each entry of `sections` with `variables`, under the rules of
 * {@linkcode renderPrompt}: the rendered text per entry, in order, `""` for
 * the ones that render empty. Checks the shape of what it reads (an array of
 * objects, an object of variables) and throws on the first failing entry.
 * Internal: shared by the renderers, not exported from `mod.ts`.
 */
export function renderSections(
  sections: readonly AssembledSection[],
  variables: Variables,
  options: RenderSectionsOptions = {},
): string[] {
  const list = options.list ?? "sections";
  const target = targetOf({ sections, variables, list });
  const rendered: string[] = new Array(sections.length);
  for (let index = 0; index < sections.length; index++) {
    rendered[index] = interpolate(entryAt(target, index), target);
  }
  return rendered;
}

/** What one render call interpolates, and where it came from. */
interface Target {
  readonly sections: readonly AssembledSection[];
  readonly variables: Variables;
  readonly list: RenderedList;
}

/** Checks the lists' shapes once per render call. */
function targetOf(target: Target): Target {
  const { sections, variables } = target;
  if (!Array.isArray(sections)) throw invalidList(target.list, sections);
  if (
    typeof variables !== "object" || variables === null ||
    Array.isArray(variables)
  ) throw invalidVariables(variables);
  return target;
}

/** Renders every entry and joins the non-empty ones with one blank line. */
function renderJoined(target: Target): string {
  const sections = target.sections;
  let joined = "";
  for (let index = 0; index < sections.length; index++) {
    const text = interpolate(entryAt(target, index), target);
    if (text === "") continue;
    joined = joined === "" ? text : joined + "\n\n" + text;
  }
  return joined;
}

function entryAt(target: Target, index: number): AssembledSection {
  const section = target.sections[index];
  if (typeof section === "object" && section !== null) return section;
  throw invalidEntry(`${target.list}[${index}]`, section);
}

function interpolate(section: AssembledSection, target: Target): string {
  const text = section.text;
  if (typeof text !== "string") {
    throw new SystemPromptError(
      "INVALID_SECTION",
      `${entryLabel(section, target)} has text that is ` +
        `${describeType(text)}; an assembled ${entryKind(target)}'s text ` +
        `must be a string.`,
    );
  }
  const { literals, names, failure } = templateOf(text);
  const variables = target.variables;
  let rendered = literals[0];
  for (let index = 0; index < names.length; index++) {
    const name = names[index];
    const value = variables[name];
    if (typeof value !== "string" || !Object.hasOwn(variables, name)) {
      resolve(entryLabel(section, target), name, variables);
    }
    rendered += value + literals[index + 1];
  }
  if (failure === undefined) return names.length === 0 ? text : rendered;
  if ("name" in failure) {
    return resolve(entryLabel(section, target), failure.name, variables);
  }
  throw unclosed(entryLabel(section, target), text, failure.open);
}

/** The slow path of a reference: says precisely why it does not resolve. */
function resolve(entry: string, name: string, variables: Variables): never {
  if (!VARIABLE_NAME_PATTERN.test(name)) {
    throw new SystemPromptError(
      "MALFORMED_REFERENCE",
      `${entry} has a malformed reference ` +
        `${quote(`{{${name}}}`)}: a reference is {{name}} where name matches ` +
        `${VARIABLE_NAME_PATTERN.source} (no spaces, lower case), ` +
        `for example {{model}}.`,
    );
  }
  if (!Object.hasOwn(variables, name)) {
    throw new SystemPromptError(
      "UNKNOWN_VARIABLE",
      `${entry} references unknown variable ` +
        `${quote(`{{${name}}}`)}; ${describeVariables(variables)}.`,
    );
  }
  const value = variables[name];
  if (value === undefined) {
    throw new SystemPromptError(
      "VARIABLE_WITHOUT_VALUE",
      `${entry} references variable ` +
        `${quote(`{{${name}}}`)}, which has no value for this assembly ` +
        `(its provider returned undefined); provide a string, or drop the ` +
        `reference for this context.`,
    );
  }
  throw new SystemPromptError(
    "INVALID_VARIABLE_VALUE",
    `${entry} references variable ` +
      `${quote(`{{${name}}}`)}, whose value is of type ${typeof value}; ` +
      `a variable's value must be a string or undefined.`,
  );
}

function describeVariables(variables: Variables): string {
  const names = Object.keys(variables).sort();
  return names.length === 0
    ? "no variables are registered"
    : `registered variables: ${names.join(", ")}`;
}

function unclosed(
  entry: string,
  text: string,
  open: number,
): SystemPromptError {
  const excerpt = text.slice(open, open + EXCERPT_LENGTH);
  const ellipsis = open + EXCERPT_LENGTH < text.length ? "…" : "";
  return new SystemPromptError(
    "MALFORMED_REFERENCE",
    `${entry} has a malformed reference at offset ` +
      `${open} (${quote(excerpt + ellipsis)}): a "{{" followed later by ` +
      `"}}" must start a complete {{name}} group with no "{" or "}" inside; ` +
      `a literal "{{" is only allowed where no "}}" follows it.`,
  );
}

function entryKind(target: Target): string {
  return target.list === "sections" ? "section" : "runtime context entry";
}

/** `Section "name"` or `Runtime context entry "name"`, for messages. */
function entryLabel(section: AssembledSection, target: Target): string {
  const kind = entryKind(target);
  return `${kind[0].toUpperCase()}${kind.slice(1)} ${quote(section.name)}`;
}
