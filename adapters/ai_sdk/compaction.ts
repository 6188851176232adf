/**
 * Server-side compaction through the AI SDK (SPEC 10.2): `serverCompaction`
 * as `@ai-sdk/openai`'s `contextManagement` provider option, and the
 * provider's compaction read back from an answer. `@ai-sdk/openai` returns
 * a Responses compaction item as a `custom` part (`kind:
 * "openai.compaction"`, its id and encrypted content in the part's
 * provider options) and sends it back as the item; `@ai-sdk/anthropic`
 * returns Anthropic's compaction block as a text part holding its content
 * and signature only, without the `encrypted_content` and `tool_changes`
 * the API wants back verbatim, so such a block is refused
 * (`COMPACTION_UNSUPPORTED`) rather than recorded into a history the API
 * would refuse.
 *
 * @module
 */

import { SystemPromptError } from "../../mod.ts";
import { quote } from "../../src/errors.ts";
import { isObject } from "../_kit/form_options.ts";

// A type, not an interface: the AI SDK's provider options want an index
// signature, which only a type literal gives implicitly.
/**
 * The provider options an AI SDK conversation's body carries for
 * `serverCompaction` (`@ai-sdk/openai`'s `contextManagement`).
 *
 * @example
 * ```ts
 * import type { AISDKServerCompactionOptions } from "@rxprompt/system-prompt/ai-sdk";
 *
 * const options: AISDKServerCompactionOptions = {
 *   openai: {
 *     contextManagement: [{ type: "compaction", compactThreshold: 200_000 }],
 *   },
 * };
 * console.log(options.openai.contextManagement.length); // 1
 * ```
 */
export type AISDKServerCompactionOptions = {
  /** `@ai-sdk/openai`: Responses `context_management`. */
  openai: {
    contextManagement: { type: "compaction"; compactThreshold: number }[];
  };
};

/** `serverCompaction`, checked: its `threshold` in input tokens. */
export function readServerCompaction(
  value: unknown,
): { threshold: number } | undefined {
  if (value === undefined) return undefined;
  const threshold = isObject(value) ? value.threshold : undefined;
  if (
    isObject(value) && Object.keys(value).length === 1 &&
    typeof threshold === "number" && Number.isInteger(threshold) &&
    threshold > 0
  ) return { threshold };
  throw new SystemPromptError(
    "INVALID_CONFIG",
    `aiSdkConversation's serverCompaction is ${
      quote(value)
    }; it must be { threshold: input tokens } (OpenAI Responses through ` +
      `@ai-sdk/openai). Anthropic's compaction cannot go through ` +
      `@ai-sdk/anthropic (it drops the block's encrypted_content and ` +
      `tool_changes): use anthropicConversation's serverCompaction.`,
  );
}

/** The provider options a body carries for `serverCompaction`. */
export function serverCompactionOptions(
  server: { threshold: number },
): AISDKServerCompactionOptions {
  return {
    openai: {
      contextManagement: [{
        type: "compaction",
        compactThreshold: server.threshold,
      }],
    },
  };
}

/**
 * The index of the last response message holding the provider's
 * compaction (an `openai.compaction` part), or `undefined`; throws
 * `COMPACTION_UNSUPPORTED` for an Anthropic compaction block.
 */
export function compactedFrom(
  messages: readonly unknown[],
): number | undefined {
  let found: number | undefined;
  messages.forEach((message, index) => {
    const content = isObject(message) ? message.content : undefined;
    if (!Array.isArray(content)) return;
    for (const part of content) {
      if (!isObject(part)) continue;
      if (part.type === "custom" && part.kind === "openai.compaction") {
        found = index;
      }
      const anthropic = isObject(part.providerOptions)
        ? part.providerOptions.anthropic
        : undefined;
      if (isObject(anthropic) && anthropic.type === "compaction") {
        throw new SystemPromptError(
          "COMPACTION_UNSUPPORTED",
          `The answer holds an Anthropic compaction block (message ` +
            `${index}), which @ai-sdk/anthropic returns without its ` +
            `encrypted_content and tool_changes: sent back, the API would ` +
            `refuse it. Nothing is recorded. Leave Anthropic's compaction ` +
            `out of the AI SDK's provider options and compact with ` +
            `compact() (a summary), or use anthropicConversation.`,
        );
      }
    }
  });
  return found;
}
