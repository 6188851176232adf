/**
 * The table of provider forms (issue 45): every form the package speaks,
 * one row each, and how the rest of the package finds one. Only entry
 * modules import it (the forms' start and resume functions, `./cache`,
 * `./otel`, the command line); a form's own files never do.
 *
 * @module
 */

import type { ConversationForm } from "../src/conversation/form.ts";
import type { FormContext } from "../src/conversation/form.ts";
import { MESSAGES_FORM } from "./anthropic/form.ts";
import { CHAT_FORM } from "./openai/chat_form.ts";
import { RESPONSES_FORM } from "./openai/responses_form.ts";
import { AI_SDK_FORM } from "./ai_sdk/form.ts";

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
