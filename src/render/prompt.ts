/**
 * `renderPrompt`: the strict, single-pass `{{name}}` interpolator.
 *
 * Pure: no state, no RxJS. Runs in time linear in the total text length on
 * every input, including adversarial ones such as megabytes of `{{`.
 *
 * @module
 */

import { quote, SystemPromptError } from "../errors.ts";
import type { AssembledSection, PromptAssembly } from "../types.ts";

/** What a variable name must look like, everywhere in the module. */
export const VARIABLE_NAME_PATTERN: RegExp = /^[a-z][a-z0-9_]*$/;

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const LOWER_A = 0x61;
const LOWER_Z = 0x7a;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const UNDERSCORE = 0x5f;
const EXCERPT_LENGTH = 40;

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
 *   that is not a string.
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
  const { sections, variables } = assembly;
  let prompt = "";
  for (let index = 0; index < sections.length; index++) {
    const text = interpolate(sections[index], variables);
    if (text === "") continue;
    prompt = prompt === "" ? text : prompt + "\n\n" + text;
  }
  return prompt;
}

/**
 * A section text split at its references: `literals[i]`, then `names[i]`,
 * ..., then the last literal. Parsing stops at the first malformed group,
 * recorded in `failure`, so errors still surface in text order: the
 * references before it are resolved first.
 */
interface Template {
  readonly literals: readonly string[];
  readonly names: readonly string[];
  readonly failure?: { readonly name: string } | { readonly open: number };
}

/**
 * Parsed templates by text. Prompts repeat from step to step, so the same
 * texts come back; a hit skips the scan. Bounded in entries and in text
 * size, and invisible in results.
 */
const templates = new Map<string, Template>();
const TEMPLATE_CACHE_ENTRIES = 4096;
const TEMPLATE_CACHE_TEXT_LENGTH = 65_536;

function templateOf(text: string): Template {
  let template = templates.get(text);
  if (template !== undefined) return template;
  template = parse(text);
  if (text.length <= TEMPLATE_CACHE_TEXT_LENGTH) {
    if (templates.size >= TEMPLATE_CACHE_ENTRIES) templates.clear();
    templates.set(text, template);
  }
  return template;
}

function parse(text: string): Template {
  const literals: string[] = [];
  const names: string[] = [];
  let open = text.indexOf("{{");
  if (open === -1) return { literals: [text], names };
  // Computed once so that deciding "does any `}}` follow this `{{`?" is O(1):
  // a per-`{{` search would make megabytes of `{{` quadratic.
  const lastClose = text.lastIndexOf("}}");
  const length = text.length;
  let copied = 0;
  while (open !== -1) {
    // Scan the group's inside once, checking the name as we go.
    let end = open + 2;
    let code = text.charCodeAt(end);
    let wellFormed = code >= LOWER_A && code <= LOWER_Z;
    while (end < length && code !== OPEN_BRACE && code !== CLOSE_BRACE) {
      if (
        !((code >= LOWER_A && code <= LOWER_Z) ||
          (code >= DIGIT_0 && code <= DIGIT_9) || code === UNDERSCORE)
      ) wellFormed = false;
      code = text.charCodeAt(++end);
    }
    if (code !== CLOSE_BRACE || text.charCodeAt(end + 1) !== CLOSE_BRACE) {
      if (lastClose >= open + 2) return { literals, names, failure: { open } };
      // No `}}` after this `{{`, so none after any later `{{` either: the
      // rest is ordinary text.
      break;
    }
    const name = text.slice(open + 2, end);
    if (!wellFormed) return { literals, names, failure: { name } };
    literals.push(text.slice(copied, open));
    names.push(name);
    copied = end + 2;
    open = text.indexOf("{{", copied);
  }
  literals.push(text.slice(copied));
  return { literals, names };
}

function interpolate(
  section: AssembledSection,
  variables: PromptAssembly["variables"],
): string {
  const text = section.text;
  if (typeof text !== "string") {
    throw new SystemPromptError(
      "INVALID_SECTION",
      `Section ${quote(section.name)} has text of type ${typeof text}; ` +
        `an assembled section's text must be a string.`,
    );
  }
  const { literals, names, failure } = templateOf(text);
  let rendered = literals[0];
  for (let index = 0; index < names.length; index++) {
    const name = names[index];
    const value = variables[name];
    if (typeof value !== "string" || !Object.hasOwn(variables, name)) {
      resolve(section, name, variables);
    }
    rendered += value + literals[index + 1];
  }
  if (failure === undefined) return names.length === 0 ? text : rendered;
  if ("name" in failure) return resolve(section, failure.name, variables);
  throw unclosed(section, text, failure.open);
}

/** The slow path of a reference: says precisely why it does not resolve. */
function resolve(
  section: AssembledSection,
  name: string,
  variables: PromptAssembly["variables"],
): never {
  if (!VARIABLE_NAME_PATTERN.test(name)) {
    throw new SystemPromptError(
      "MALFORMED_REFERENCE",
      `Section ${quote(section.name)} has a malformed reference ` +
        `${quote(`{{${name}}}`)}: a reference is {{name}} where name matches ` +
        `${VARIABLE_NAME_PATTERN.source} (no spaces, lower case), ` +
        `for example {{model}}.`,
    );
  }
  if (!Object.hasOwn(variables, name)) {
    throw new SystemPromptError(
      "UNKNOWN_VARIABLE",
      `Section ${quote(section.name)} references unknown variable ` +
        `${quote(`{{${name}}}`)}; ${describeVariables(variables)}.`,
    );
  }
  const value = variables[name];
  if (value === undefined) {
    throw new SystemPromptError(
      "VARIABLE_WITHOUT_VALUE",
      `Section ${quote(section.name)} references variable ` +
        `${quote(`{{${name}}}`)}, which has no value for this assembly ` +
        `(its provider returned undefined); provide a string, or drop the ` +
        `reference for this context.`,
    );
  }
  throw new SystemPromptError(
    "INVALID_VARIABLE_VALUE",
    `Section ${quote(section.name)} references variable ` +
      `${quote(`{{${name}}}`)}, whose value is of type ${typeof value}; ` +
      `a variable's value must be a string or undefined.`,
  );
}

function describeVariables(variables: PromptAssembly["variables"]): string {
  const names = Object.keys(variables).sort();
  return names.length === 0
    ? "no variables are registered"
    : `registered variables: ${names.join(", ")}`;
}

function unclosed(
  section: AssembledSection,
  text: string,
  open: number,
): SystemPromptError {
  const excerpt = text.slice(open, open + EXCERPT_LENGTH);
  const ellipsis = open + EXCERPT_LENGTH < text.length ? "…" : "";
  return new SystemPromptError(
    "MALFORMED_REFERENCE",
    `Section ${quote(section.name)} has a malformed reference at offset ` +
      `${open} (${quote(excerpt + ellipsis)}): a "{{" followed later by ` +
      `"}}" must start a complete {{name}} group with no "{" or "}" inside; ` +
      `a literal "{{" is only allowed where no "}}" follows it.`,
  );
}
