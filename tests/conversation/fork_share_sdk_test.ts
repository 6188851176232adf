// Deno-only: issue 44, item 2, through the real clients. A lead agent's two
// steps and its fork's first request go through `@anthropic-ai/sdk`
// (`messages.create`; `beta.messages.create` with inline tool changes),
// `generateText` with `@ai-sdk/anthropic`, and `openai`'s Chat Completions
// and Responses, to a loopback server that answers each body with the
// usage the provider's prefix rules (the simulator's) give every body it
// received so far. The fork's first request reads what the bytes it shares
// with its parent are worth, on every form.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { generateText } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import type { AISDKConversationBody } from "../../adapters/ai_sdk/mod.ts";
import type {
  AnthropicConversationBody,
  AnthropicInlineConversationBody,
} from "../../adapters/anthropic/mod.ts";
import type {
  ChatConversationBody,
  ResponsesConversationBody,
} from "../../adapters/openai/mod.ts";
import { SDK_PERMISSIONS } from "../adapters/sdk_permissions.ts";
import { serveLoopback } from "../adapters/loopback.ts";
import {
  AI_SDK,
  answerOf,
  ANTHROPIC,
  ANTHROPIC_INLINE,
  CHILD_ADDS,
  countTokens,
  OPENAI_FORMS,
  playFork,
  sharedWorth,
  type ShareForm,
  shareRegistry,
} from "./fork_share.ts";

const CLIENT = { apiKey: "sk-loopback", maxRetries: 0 };

/** How each form's body reaches the loopback server at `baseURL`. */
function sender(
  form: ShareForm,
  baseURL: string,
): (body: unknown) => Promise<unknown> {
  if (form === AI_SDK) {
    const model = createAnthropic({ apiKey: "sk-loopback", baseURL })(
      "claude-sonnet-4-5",
    );
    return async (body) =>
      await generateText({
        model,
        maxRetries: 0,
        maxOutputTokens: 1024,
        ...body as AISDKConversationBody,
      });
  }
  if (form.provider === "anthropic") {
    const client = new Anthropic({ ...CLIENT, baseURL });
    return form.inline
      ? (body) =>
        client.beta.messages.create(body as AnthropicInlineConversationBody)
      : (body) => client.messages.create(body as AnthropicConversationBody);
  }
  const client = new OpenAI({ ...CLIENT, baseURL });
  return form.name.startsWith("Chat")
    ? (body) => client.chat.completions.create(body as ChatConversationBody)
    : (body) => client.responses.create(body as ResponsesConversationBody);
}

describe("a fork's first read through the real SDKs", {
  skip: SDK_PERMISSIONS,
}, () => {
  for (const form of [ANTHROPIC, ANTHROPIC_INLINE, AI_SDK, ...OPENAI_FORMS]) {
    for (const adds of CHILD_ADDS) {
      it(
        `${form.name}: a scope that adds a ${
          adds === "both" ? "tool and a section" : adds
        }`,
        async () => {
          const prompt = shareRegistry(adds, { cut: true });
          try {
            const received: unknown[] = [];
            const child = await serveLoopback((request) => {
              received.push(JSON.parse(request.body));
              return answerOf(form, received);
            }, (baseURL) => playFork(form, prompt, sender(form, baseURL)));
            assert.equal(received.length, 3);
            const worth = sharedWorth(received[1], form, adds);
            assert.ok(worth >= 1024, `the scenario shares ${worth} tokens`);
            assert.equal(
              child.report({ countTokens }).requests[0].cacheReadTokens,
              worth,
            );
          } finally {
            await prompt.dispose();
          }
        },
      );
    }
  }
});
