/**
 * Starting and resuming a Gemini conversation (SPEC 10.5), with the
 * ledger of its explicit cache entries.
 *
 * @module
 */

import type { AssembleContext } from "../../mod.ts";
import type { ConversationPrompt } from "../../src/conversation/types.ts";
import type { ConversationReportOptions } from "../../src/conversation/observer_types.ts";
import {
  resumeConversation,
  startConversation,
} from "../../src/conversation/start.ts";
import { readOptionBag } from "../../src/conversation/checks.ts";
import { FORM_CONTEXT } from "../forms.ts";
import type {
  GeminiCacheReport,
  GeminiConversation,
  GeminiConversationOptions,
} from "./conversation_types.ts";
import { GEMINI_FORM } from "./form.ts";
import {
  CacheLedger,
  readCachedContents,
  storageOf,
} from "./cached_contents.ts";

/**
 * Starts a Gemini conversation (SPEC 10.5): each `request()` returns the
 * whole body for `ai.models.generateContent(body)` of `@google/genai`,
 * with the request loop's rules applied:
 *
 * - `systemInstruction`, `tools` and the gates' `toolConfig` from
 *   `toGemini`; the tools of the first request stay declared byte for byte
 *   (a call of a tool the gates left inactive is answered with a refusal);
 * - the runtime context after the last item, only when it changed;
 * - no marks: Gemini caches a request's prefix implicitly (from 4,096
 *   tokens on Gemini 3), so a prefix that never changes is all it needs;
 * - with `cachedContents: { caches: ai.caches }`, an explicit cache entry
 *   for the system instruction and tools once they reach the minimum
 *   (created at that request, named by it and the next ones as
 *   `config.cachedContent`, renewed when less than half its lifetime is
 *   left, replaced when they change, deleted by `dispose()`); the report
 *   counts what it stored (`cachedContents`).
 *
 * A function call without an id (the Gemini API gives none) is named
 * `name#index` (its place among the answer's calls) for `toolResult()`.
 *
 * @param prompt what each step is assembled from
 * @param options the model and the conversation's options
 * @returns the conversation
 *
 * @example A tool round trip
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { geminiConversation } from "@rxprompt/system-prompt/gemini";
 *
 * const prompt = new SystemPrompt({ persona: "You are a coding agent." });
 * prompt.tools(() => ({
 *   schemas: [{ name: "read_file", description: "Read a file.", parameters: {} }],
 * }));
 * const conv = geminiConversation(prompt, { model: "gemini-3-flash" });
 * conv.user("What is in a.ts?");
 * await conv.request(); // send it: await ai.models.generateContent(body)
 * const calls = conv.record({
 *   candidates: [{
 *     content: { role: "model", parts: [{ functionCall: { name: "read_file", args: { path: "a.ts" } } }] },
 *   }],
 * });
 * console.log(calls[0].id); // "read_file#0"
 * for (const call of calls) conv.toolResult(call.id, "export {};");
 * const body = await conv.request();
 * console.log(body.contents.map((c) => c.role)); // ["user", "model", "user"]
 * console.log(body.contents[2].parts[0]); // { functionResponse: { name: "read_file", response: { output: "export {};" } } }
 * await conv.dispose();
 * await prompt.dispose();
 * ```
 */
export function geminiConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  options: GeminiConversationOptions,
): GeminiConversation<C> {
  const ledger = new CacheLedger();
  const conversation = startConversation(GEMINI_FORM, prompt, options, {
    ...FORM_CONTEXT,
    adapter: ledger,
  });
  return withLedger(conversation, ledger, options);
}

/**
 * Resumes a Gemini conversation from its recording: the next request is
 * byte-identical to the one the original would have built (the explicit
 * cache entry it named included, while it lives); the recording's options
 * apply unless `options` gives them again (`cachedContents: { caches:
 * ai.caches }` again, for a conversation with an explicit cache).
 *
 * @param prompt what each step is assembled from
 * @param recording the recording's text (JSON lines)
 * @param options options that replace the recording's
 * @returns the conversation, as it was after its last recorded step
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { geminiConversation, resumeGeminiConversation } from "@rxprompt/system-prompt/gemini";
 *
 * const conv = geminiConversation(new SystemPrompt(), { model: "gemini-3-flash" });
 * const again = resumeGeminiConversation(new SystemPrompt(), conv.save());
 * console.log(again.session === conv.session); // true
 * ```
 */
export function resumeGeminiConversation<
  C extends AssembleContext = AssembleContext,
>(
  prompt: ConversationPrompt<C>,
  recording: string,
  options?: Partial<GeminiConversationOptions>,
): GeminiConversation<C> {
  const ledger = new CacheLedger();
  ledger.seed(recording);
  const conversation = resumeConversation(
    GEMINI_FORM,
    prompt,
    recording,
    options,
    { ...FORM_CONTEXT, adapter: ledger },
  );
  const saved = JSON.parse(recording.split("\n")[0] || "{}")?.options ?? {};
  return withLedger(
    conversation,
    ledger,
    GEMINI_FORM.resumeOptions(
      saved,
      readOptionBag(options, "resumeGeminiConversation"),
    ),
  );
}

/** The conversation with the report's storage figures and `dispose()`. */
function withLedger<C extends AssembleContext>(
  conversation: ReturnType<typeof startConversation>,
  ledger: CacheLedger,
  options: unknown,
): GeminiConversation<C> {
  const bag = (options ?? {}) as Record<string, unknown>;
  const settings = readCachedContents(bag.cachedContents);
  const clock = typeof bag.clock === "function"
    ? bag.clock as () => number
    : Date.now;
  const report = conversation.report.bind(conversation);
  return Object.assign(conversation, {
    report: (reportOptions: ConversationReportOptions): GeminiCacheReport => {
      if (settings === undefined) return report(reportOptions);
      const cachedContents = ledger.figures(settings.storagePrice);
      const { storage: _recorded, ...rest } = report(reportOptions);
      // The ledger knows when dispose() deleted an entry; a recording not.
      return {
        ...rest,
        ...(cachedContents.entries.length === 0
          ? {}
          : { storage: storageOf(cachedContents) }),
        cachedContents,
      };
    },
    dispose: () => ledger.dispose(settings?.caches, clock),
  }) as unknown as GeminiConversation<C>;
}
