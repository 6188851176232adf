/**
 * The table of provider forms (issue 45): every form the package speaks,
 * one row each, and how the rest of the package finds one. Only entry
 * modules import it (the forms' start and resume functions, `./cache`,
 * `./otel`, the command line); a form's own files never do.
 *
 * @module
 */

import type {
  ConversationForm,
  FormContext,
  ProviderForm,
} from "../src/conversation/form.ts";
import { MESSAGES_FORM } from "./anthropic/form.ts";
import { CHAT_FORM } from "./openai/chat_form.ts";
import { RESPONSES_FORM } from "./openai/responses_form.ts";
import { AI_SDK_FORM } from "./ai_sdk/form.ts";

/** Every form, in the docs' order. */
export const FORMS: readonly ProviderForm[] = [
  MESSAGES_FORM,
  CHAT_FORM,
  RESPONSES_FORM,
  AI_SDK_FORM,
];

/**
 * The conversation forms in the order an answer is recognized in (0.4's:
 * the AI SDK's result first, whose other getters may throw; then Chat
 * Completions, Responses, Anthropic Messages). A new form goes last.
 */
export const RECOGNITION: readonly ConversationForm<never, never>[] = [
  AI_SDK_FORM,
  CHAT_FORM,
  RESPONSES_FORM,
  MESSAGES_FORM,
] as readonly ConversationForm[] as readonly ConversationForm<never, never>[];

/** What every form's start and resume functions give their conversation. */
export const FORM_CONTEXT: FormContext = { forms: RECOGNITION };

/** The form with id (or 0.4 name) `name`, or `undefined`. */
export function formNamed(
  name: unknown,
  forms: readonly ProviderForm[] = FORMS,
): ProviderForm | undefined {
  return forms.find((form) => form.id === name) ??
    forms.find((form) => form.formerNames.includes(name as string));
}

/** The conversation form a recording's header names, or `undefined`. */
export function conversationFormNamed(
  name: unknown,
  forms: readonly ProviderForm[] = FORMS,
): ConversationForm | undefined {
  const form = forms.find((known) => known.id === name);
  return form !== undefined && "builder" in form
    ? form as ConversationForm
    : undefined;
}
