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
import type { ProviderRules, RuleTable } from "../src/cache/simulator/rules.ts";
import { MESSAGES_FORM } from "./anthropic/form.ts";
import { CHAT_FORM } from "./openai/chat/form.ts";
import { RESPONSES_FORM } from "./openai/responses/form.ts";
import { AI_SDK_FORM } from "./ai_sdk/form.ts";
import { CONVERSE_FORM } from "./bedrock/form.ts";
import { GEMINI_FORM } from "./gemini/form.ts";

/**
 * An API's request form, as recordings, reports, the simulator and spans
 * name it: Anthropic Messages, OpenAI Chat Completions, OpenAI Responses,
 * the AI SDK, Amazon Bedrock Converse, Gemini `generateContent`.
 *
 * @example
 * ```ts
 * import type { FormId } from "@rxprompt/system-prompt/cache";
 *
 * const form: FormId = "openai-responses";
 * ```
 */
export type FormId =
  | "anthropic-messages"
  | "openai-chat"
  | "openai-responses"
  | "ai-sdk"
  | "bedrock-converse"
  | "gemini";

/**
 * The form a response came from ({@linkcode FormId}; `ReportedUsage.source`).
 *
 * @example
 * ```ts
 * import type { UsageSource } from "@rxprompt/system-prompt/cache";
 *
 * const source: UsageSource = "anthropic-messages";
 * ```
 */
export type UsageSource = FormId;

/** Every form, in the docs' order. */
export const FORMS: readonly ProviderForm[] = [
  MESSAGES_FORM,
  CHAT_FORM,
  RESPONSES_FORM,
  AI_SDK_FORM,
  CONVERSE_FORM,
  GEMINI_FORM,
];

/**
 * The conversation forms 0.4 recognized an answer as, in its order (the AI
 * SDK's result first, whose other getters may throw; then Chat
 * Completions, Responses, Anthropic Messages).
 */
const RECOGNIZED_IN_04: readonly string[] = [
  AI_SDK_FORM.id,
  CHAT_FORM.id,
  RESPONSES_FORM.id,
  MESSAGES_FORM.id,
];

/** Everything the package derives from its forms' rows. */
export interface FormTable {
  /** The rows, in the docs' order. */
  readonly forms: readonly ProviderForm[];
  /**
   * The conversation forms in the order an answer is recognized in: 0.4's,
   * then any other in the rows' order (a new form goes last).
   */
  readonly recognition: readonly ConversationForm<never, never>[];
  /** Every rules set of the rows, in the rows' order (`--provider`'s). */
  readonly rules: readonly ProviderRules[];
  /** The rules table the cache functions resolve a provider's id with. */
  readonly ruleTable: RuleTable;
  /** What a form's start and resume functions give their conversation. */
  readonly context: FormContext;
}

/**
 * The table of `forms`: the recognition order, the rules (each once, in
 * the order the rows name them) and the order a body of unknown provider
 * is claimed in (newest rules first, a catch-all last).
 */
export function formTable(forms: readonly ProviderForm[]): FormTable {
  const conversations = forms.filter((form): form is ConversationForm =>
    "builder" in form
  );
  const rank = (form: ProviderForm) => {
    const at = RECOGNIZED_IN_04.indexOf(form.id);
    return at === -1 ? RECOGNIZED_IN_04.length : at;
  };
  const recognition = conversations
    .map((form, index) => ({ form, index }))
    .sort((a, b) => rank(a.form) - rank(b.form) || a.index - b.index)
    .map(({ form }) => form as ConversationForm<never, never>);
  const rules = [...new Set(forms.flatMap((form) => form.cache.rules))];
  const readers = new Set<ProviderRules["readBody"]>();
  const distinct = rules.filter((set) => {
    if (readers.has(set.readBody)) return false;
    readers.add(set.readBody);
    return true;
  }).reverse();
  const ruleTable: RuleTable = {
    named: (id) => rules.find((set) => set.id === id),
    ids: rules.map((set) => set.id),
    bodyOrder: [
      ...distinct.filter((set) => set.claimsAnyBody !== true),
      ...distinct.filter((set) => set.claimsAnyBody === true),
    ],
  };
  return {
    forms,
    recognition,
    rules,
    ruleTable,
    context: { forms: recognition, rules: ruleTable },
  };
}

/** The package's table. */
export const TABLE: FormTable = formTable(FORMS);

/**
 * The conversation forms in the order an answer is recognized in (0.4's:
 * the AI SDK's result first, whose other getters may throw; then Chat
 * Completions, Responses, Anthropic Messages). A new form goes last.
 */
export const RECOGNITION: readonly ConversationForm<never, never>[] =
  TABLE.recognition;

/**
 * The caching rules a simulation, a report or a judgement applies:
 * Anthropic's `cache_control` markers, OpenAI's automatic prefix cache,
 * OpenAI's explicit `prompt_cache_breakpoint` marks (gpt-5.6 and later),
 * Amazon Bedrock's `cachePoint` blocks (Converse), or Gemini's implicit
 * prefix cache.
 *
 * @example
 * ```ts
 * import type { CacheProvider } from "@rxprompt/system-prompt/cache";
 *
 * const provider: CacheProvider = "openai-explicit";
 * ```
 */
export type CacheProvider =
  | "anthropic"
  | "openai"
  | "openai-explicit"
  | "bedrock"
  | "gemini";

/** Every provider's rules, in the order reports list them. */
export const RULES: readonly ProviderRules[] = TABLE.rules;

/** The rules with id `id`, or `undefined`. */
export function rulesNamed(id: unknown): ProviderRules | undefined {
  return TABLE.ruleTable.named(id);
}

/** The rules table the cache functions resolve a provider's id with. */
export const RULE_TABLE: RuleTable = TABLE.ruleTable;

/** What every form's start and resume functions give their conversation. */
export const FORM_CONTEXT: FormContext = TABLE.context;

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
