/**
 * The errors of a reference that does not resolve, shared by the cached and
 * the direct paths of `renderPrompt`. Internal: not exported from `mod.ts`.
 *
 * @module
 */

import { quote, SystemPromptError } from "../errors.ts";
import type { PromptAssembly } from "../types.ts";

/** What a variable name must look like, everywhere in the module. */
export const VARIABLE_NAME_PATTERN: RegExp = /^[a-z][a-z0-9_]*$/;

const EXCERPT_LENGTH = 40;

type Variables = PromptAssembly["variables"];

/** The slow path of a reference: says precisely why it does not resolve. */
export function resolve(
  entry: string,
  name: string,
  variables: Variables,
): never {
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

export function unclosed(
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
