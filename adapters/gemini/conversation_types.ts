/**
 * The Gemini conversation's types (SPEC 10.5): its contents, bodies,
 * answers, options and its explicit cache's entries. Structural: the body
 * type-checks against `@google/genai`'s `GenerateContentParameters`
 * without a cast.
 *
 * @module
 */

import type { AssembleContext } from "../../mod.ts";
import type {
  Conversation,
  ConversationOptions,
} from "../../src/conversation/types.ts";
import type { PromptCacheReport } from "../../src/cache/report/types.ts";
import type { ConversationReportOptions } from "../../src/conversation/observer_types.ts";
import type {
  GeminiFunctionDeclaration,
  GeminiTextPart,
  GeminiToolConfig,
} from "./request.ts";

/**
 * One part of a Gemini conversation's content: text (the model's thoughts
 * with their signatures), a function call or a function response. The
 * model's parts are kept as the SDK returned them.
 *
 * @example
 * ```ts
 * import type { GeminiPart } from "@rxprompt/system-prompt/gemini";
 *
 * const part: GeminiPart = {
 *   functionResponse: { name: "read_file", response: { output: "42 lines" } },
 * };
 * ```
 */
export interface GeminiPart {
  /** Text (the person's, the model's, the runtime context). */
  text?: string;
  /** Whether the text is the model's thought. */
  thought?: boolean;
  /** The signature of the model's thought, sent back as it came. */
  thoughtSignature?: string;
  /** The model's call of a function. */
  functionCall?: {
    id?: string;
    name?: string;
    args?: Record<string, unknown>;
  };
  /** A function's result: `{ output }`, or `{ error }` for an error result. */
  functionResponse?: {
    id?: string;
    name?: string;
    response?: Record<string, unknown>;
  };
  /** Inline data (an image, a document), base64. */
  inlineData?: { mimeType?: string; data?: string };
  /** A file by URI. */
  fileData?: { mimeType?: string; fileUri?: string };
}

/**
 * One content (turn) of a Gemini conversation's history.
 *
 * @example
 * ```ts
 * import type { GeminiContent } from "@rxprompt/system-prompt/gemini";
 *
 * const content: GeminiContent = { role: "user", parts: [{ text: "Hi." }] };
 * ```
 */
export interface GeminiContent {
  /** `"user"` (the person, function responses, the runtime context) or `"model"`. */
  role: "user" | "model";
  /** The turn's parts. */
  parts: GeminiPart[];
}

/**
 * The whole body of one Gemini conversation request: pass it to
 * `ai.models.generateContent(body)` (or `generateContentStream`). With an
 * explicit cache entry in use, `config.cachedContent` names it and the
 * system instruction and tools are the entry's (Gemini takes them from it).
 *
 * @example
 * ```ts
 * import type { GeminiConversationBody } from "@rxprompt/system-prompt/gemini";
 *
 * const body: GeminiConversationBody = {
 *   model: "gemini-3-flash",
 *   contents: [{ role: "user", parts: [{ text: "Hi." }] }],
 *   config: { systemInstruction: { parts: [{ text: "You are terse." }] } },
 * };
 * ```
 */
export interface GeminiConversationBody {
  /** The model, from the options. */
  model: string;
  /** The history and this step's new contents. */
  contents: GeminiContent[];
  /** The request's configuration. */
  config: {
    /** The system prompt as one text part (absent with `cachedContent`). */
    systemInstruction?: { parts: GeminiTextPart[] };
    /** The first request's tools, stable (absent with `cachedContent`). */
    tools?: { functionDeclarations: GeminiFunctionDeclaration[] }[];
    /** The gates' allowed functions (absent with `cachedContent`). */
    toolConfig?: GeminiToolConfig;
    /** The explicit cache entry's name, while one is in use. */
    cachedContent?: string;
    /** `maxOutputTokens`, when given. */
    maxOutputTokens?: number;
  };
}

/**
 * What `record()` takes: the SDK's `GenerateContentResponse` (its first
 * candidate's content is the model's turn), or every chunk of
 * `generateContentStream()`, in order.
 *
 * @example
 * ```ts
 * import type { GeminiAnswer } from "@rxprompt/system-prompt/gemini";
 *
 * const answer: GeminiAnswer = {
 *   candidates: [{ content: { role: "model", parts: [{ text: "Done." }] } }],
 *   usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2 },
 * };
 * ```
 */
export interface GeminiAnswer {
  /** The first candidate's content is the answer. */
  readonly candidates?: readonly {
    readonly content?: {
      readonly role?: string;
      readonly parts?: readonly unknown[];
    };
    readonly finishReason?: string;
  }[];
  /** The reported usage (`cachedContentTokenCount`). */
  readonly usageMetadata?: unknown;
  /** The response's id. */
  readonly responseId?: string;
  /** The model that answered. */
  readonly modelVersion?: string;
}

/**
 * The part of `@google/genai`'s `ai.caches` the conversation uses: give
 * it `ai.caches`.
 *
 * @example
 * ```ts
 * import type { GeminiCaches } from "@rxprompt/system-prompt/gemini";
 *
 * const caches: GeminiCaches = {
 *   create: () => Promise.resolve({ name: "cachedContents/1", expireTime: "2026-01-01T01:00:00Z" }),
 *   update: () => Promise.resolve({ expireTime: "2026-01-01T02:00:00Z" }),
 *   delete: () => Promise.resolve({}),
 * };
 * ```
 */
export interface GeminiCaches {
  /** `ai.caches.create`. */
  create(params: {
    model: string;
    config: {
      systemInstruction?: { parts: GeminiTextPart[] };
      tools?: { functionDeclarations: GeminiFunctionDeclaration[] }[];
      ttl: string;
      displayName?: string;
    };
  }): Promise<{
    name?: string;
    expireTime?: string;
    usageMetadata?: { totalTokenCount?: number };
  }>;
  /** `ai.caches.update` (a new lifetime). */
  update(params: {
    name: string;
    config: { ttl: string };
  }): Promise<{ expireTime?: string }>;
  /** `ai.caches.delete`. */
  delete(params: { name: string }): Promise<unknown>;
}

/**
 * The `cachedContents` option: an explicit cache entry holding the system
 * instruction and the tools, created by the conversation once they reach
 * `minTokens`, named by each request while it lives, its lifetime renewed
 * when less than half is left, replaced when the prefix changes, deleted
 * by `dispose()`.
 *
 * @example
 * ```ts
 * import type { GeminiCachedContentsOption } from "@rxprompt/system-prompt/gemini";
 *
 * const option: GeminiCachedContentsOption = { ttlSeconds: 1800 };
 * ```
 */
export interface GeminiCachedContentsOption {
  /** `ai.caches` (not saved: give it again to a resume). */
  caches?: GeminiCaches;
  /** The entry's lifetime, in seconds (default 3600). */
  ttlSeconds?: number;
  /**
   * The estimated tokens (a quarter of the characters) the system
   * instruction and tools must reach for an entry (default 4096, Gemini
   * 3's minimum; Gemini refuses a smaller one).
   */
  minTokens?: number;
  /**
   * What a token stored an hour costs, in input-token prices, for the
   * report (default 2: Gemini 3 Flash's $1.00 per million token-hours
   * over its $0.50 per million input tokens).
   */
  storagePrice?: number;
}

/**
 * Options of {@linkcode geminiConversation}.
 *
 * @example
 * ```ts
 * import type { GeminiConversationOptions } from "@rxprompt/system-prompt/gemini";
 *
 * const options: GeminiConversationOptions = { model: "gemini-3-flash" };
 * ```
 */
export interface GeminiConversationOptions extends ConversationOptions {
  /** The model of every request. */
  model: string;
  /** `config.maxOutputTokens` of every request, when given. */
  maxOutputTokens?: number;
  /** `toGemini`'s `toolChoiceMode` (default `"auto"`: `VALIDATED`). */
  toolChoiceMode?: "auto" | "required";
  /** An explicit cache entry for the system instruction and tools. */
  cachedContents?: GeminiCachedContentsOption;
}

/**
 * One explicit cache entry the conversation used, as the report counts it.
 *
 * @example
 * ```ts
 * import type { GeminiCacheEntry } from "@rxprompt/system-prompt/gemini";
 *
 * const entry: GeminiCacheEntry = {
 *   name: "cachedContents/1",
 *   tokens: 5000,
 *   createdAt: 0,
 *   expiresAt: 3_600_000,
 * };
 * ```
 */
export interface GeminiCacheEntry {
  /** The entry's resource name. */
  name: string;
  /** Its tokens (Gemini's count when it gave one, else the estimate). */
  tokens: number;
  /** When it was created (ms, the conversation's clock). */
  createdAt: number;
  /** When it expires, as last renewed (ms). */
  expiresAt: number;
  /** When `dispose()` deleted it, or the recorded step that replaced it (ms). */
  deletedAt?: number;
}

/**
 * The report of a Gemini conversation: {@linkcode PromptCacheReport} and
 * what its explicit cache entries stored.
 *
 * @example
 * ```ts
 * import type { GeminiCacheReport } from "@rxprompt/system-prompt/gemini";
 *
 * function storage(report: GeminiCacheReport): number {
 *   return report.cachedContents?.tokenHours ?? 0;
 * }
 * console.log(typeof storage); // "function"
 * ```
 */
export interface GeminiCacheReport extends PromptCacheReport {
  /** The explicit cache entries; absent without the `cachedContents` option. */
  cachedContents?: {
    /** Each entry the conversation created or resumed with. */
    entries: GeminiCacheEntry[];
    /** The tokens each entry was created with, summed (billed as input). */
    writtenTokens: number;
    /** Tokens × hours stored, each entry until deleted or expired. */
    tokenHours: number;
    /** `tokenHours` × the storage price, in input-token prices. */
    storageCost: number;
  };
}

/**
 * A Gemini conversation: {@linkcode Conversation} with the
 * `@google/genai` shapes, its report with the explicit cache's storage,
 * and `dispose()`, which deletes the explicit cache entries it (and its
 * forks) created.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { type GeminiConversation, geminiConversation } from "@rxprompt/system-prompt/gemini";
 *
 * const conv: GeminiConversation = geminiConversation(new SystemPrompt(), { model: "gemini-3-flash" });
 * console.log(conv.messages.length); // 0
 * await conv.dispose();
 * ```
 */
export interface GeminiConversation<
  C extends AssembleContext = AssembleContext,
> extends
  Omit<
    Conversation<
      GeminiConversationBody,
      GeminiAnswer | readonly GeminiAnswer[],
      string | GeminiPart[],
      string | Record<string, unknown>,
      GeminiContent,
      C
    >,
    "report"
  > {
  /** The report, and the explicit cache entries' storage. */
  report(options: ConversationReportOptions): GeminiCacheReport;
  /** Deletes every explicit cache entry the conversation and its forks created. */
  dispose(): Promise<void>;
}
