/**
 * Starting and resuming a conversation of any form (SPEC 9.1): what every
 * form's public start and resume functions do, given the form and the
 * forms an answer may be recognized as (the adapters' table, in the order
 * 0.4 recognized answers).
 *
 * @module
 */

import type { AssembleContext } from "../types.ts";
import { readOptionBag } from "./checks.ts";
import { ConversationShell } from "./conversation.ts";
import type { ConversationForm, FormContext } from "./form.ts";
import { parseRecording } from "./recording.ts";
import type {
  Conversation,
  ConversationOptions,
  ConversationPrompt,
} from "./types.ts";

/**
 * A new conversation of `form` (the form's start function).
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` for options the form refuses
 */
export function startConversation<
  Body,
  Answer,
  Input,
  Result,
  M,
  C extends AssembleContext,
>(
  form: ConversationForm<M, Body>,
  prompt: ConversationPrompt<C>,
  options: unknown,
  context: FormContext,
): Conversation<Body, Answer, Input, Result, M, C> {
  const read = readOptionBag(options, form.functions.start);
  return new ConversationShell<Body, Answer, Input, Result, M, C>(
    prompt,
    { form, context, builder: form.builder(read, context.adapter) },
    read as ConversationOptions,
  );
}

/**
 * A conversation of `form` resumed from its recording (the form's resume
 * function): the recording's options, then `options`.
 *
 * @throws {SystemPromptError} what `parseRecording` throws, and
 * `INVALID_CONFIG` for options the form refuses
 */
export function resumeConversation<
  Body,
  Answer,
  Input,
  Result,
  M,
  C extends AssembleContext,
>(
  form: ConversationForm<M, Body>,
  prompt: ConversationPrompt<C>,
  recording: string,
  options: unknown,
  context: FormContext,
): Conversation<Body, Answer, Input, Result, M, C> {
  const given = readOptionBag(options, form.functions.resume);
  const parsed = parseRecording(recording, form);
  const merged = form.resumeOptions(
    parsed.header.options,
    given as Readonly<Record<string, unknown>> | undefined,
  );
  return new ConversationShell<Body, Answer, Input, Result, M, C>(
    prompt,
    { form, context, builder: form.builder(merged, context.adapter) },
    merged as ConversationOptions,
    parsed,
  );
}
