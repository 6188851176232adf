/**
 * What sections and runtime context entries share: the record validation of
 * `{ name, order, text }` and the resolution of a text function or source.
 *
 * @module
 */

import { typeName } from "../shared/user_code.ts";
import { quote, readGuarded, SystemPromptError } from "../errors.ts";
import {
  callSource,
  isLive,
  liveOr,
  type LiveValue,
  revokedFunction,
} from "./live.ts";
import { isRevokedProxy } from "../shared/util.ts";
import type { AssembledSection } from "../types.ts";

/** The text of an entry: a string, a function of the context, or a source. */
export type EntryText =
  | string
  | ((context: unknown) => string)
  | LiveValue<string>;

/** How a kind names its entries in error messages. */
export interface EntryWords {
  /** Lower-case noun, e.g. `"section"`. */
  readonly noun: string;
  /** The message when reading the entry's fields throws. */
  readonly unreadable: string;
  /** Appended to the order message, e.g. the order bands. */
  readonly orderHint: string;
  /** What `""` leaves out, e.g. `"the section"`. */
  readonly leftOut: string;
}

/**
 * Reads and checks `{ name, order, text }` and the `extra` fields of an
 * entry (all read in one guarded pass), throwing `INVALID_SECTION`.
 */
export function readTextEntry<K extends string>(
  input: unknown,
  words: EntryWords,
  extra: readonly K[] = [],
): { name: string; order: number; text: EntryText } & Record<K, unknown> {
  if (typeof input !== "object" || input === null) {
    throw new SystemPromptError(
      "INVALID_SECTION",
      `A ${words.noun} must be an object { name, order, text }; got ${
        quote(input)
      }.`,
    );
  }
  const fields = readGuarded(
    () => {
      const source = input as Record<string, unknown>;
      const read: Record<string, unknown> = {
        name: source.name,
        order: source.order,
        text: source.text,
      };
      for (const key of extra) read[key] = source[key];
      return read;
    },
    "INVALID_SECTION",
    () => words.unreadable,
  );
  const { name, order, text } = checkTextEntry(fields, words);
  return { ...fields, name, order, text } as {
    name: string;
    order: number;
    text: EntryText;
  } & Record<K, unknown>;
}

/** Throws `INVALID_SECTION` unless the read name, order and text fit. */
function checkTextEntry(
  fields: Record<string, unknown>,
  words: EntryWords,
): { name: string; order: number; text: EntryText } {
  const { noun } = words;
  const Noun = noun[0].toUpperCase() + noun.slice(1);
  const { name, order } = fields;
  const text = liveOr(fields.text, "");
  if (typeof name !== "string" || name === "") {
    throw new SystemPromptError(
      "INVALID_SECTION",
      `A ${noun}'s name must be a non-empty string; got ${quote(name)}.`,
    );
  }
  if (typeof order !== "number" || !Number.isFinite(order)) {
    throw new SystemPromptError(
      "INVALID_SECTION",
      `${Noun} ${quote(name)} has order ${quote(order)}; the order must be ` +
        `a finite number${words.orderHint}.`,
    );
  }
  if (isRevokedProxy(text)) {
    throw revokedFunction(
      `The text of ${noun} ${quote(name)}`,
      "INVALID_SECTION",
    );
  }
  if (typeof text !== "string" && typeof text !== "function" && !isLive(text)) {
    throw new SystemPromptError(
      "INVALID_SECTION",
      `${Noun} ${quote(name)} has text of type ${typeof text}; the text must ` +
        `be a string, a function of the assembly context returning one, or an ` +
        `Observable<string>.`,
    );
  }
  return { name, order, text: text as EntryText };
}

/** Resolves an entry's text for `context`, throwing `PROVIDER_FAILED`. */
export function resolveTextEntry(
  entry: { readonly name: string; readonly order: number; text: EntryText },
  context: unknown,
  words: EntryWords,
): AssembledSection {
  const { name, order, text } = entry;
  if (typeof text === "string") return { name, order, text };
  const what = isLive(text) ? "text source" : "text function";
  const value: unknown = callSource(
    text,
    context,
    () => `${what} of ${words.noun} ${quote(name)}`,
  );
  if (typeof value !== "string") {
    throw new SystemPromptError(
      "PROVIDER_FAILED",
      `The ${what} of ${words.noun} ${quote(name)} returned ` +
        `${typeName(value)}; it must return a string ("" to leave ` +
        `${words.leftOut} out).`,
    );
  }
  return { name, order, text: value };
}
