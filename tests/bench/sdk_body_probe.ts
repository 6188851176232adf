/**
 * What the SDKs do with a body's message array (issue 49: may a
 * conversation hand out one array it goes on changing, or a frozen one?),
 * through the real clients against the loopback server:
 *
 * - when the body is read: a message pushed right after `create()` (or
 *   `generateText()`) returned, before its promise is awaited, is sent or
 *   not;
 * - on a retry: a message pushed between the first attempt (answered with
 *   HTTP 500) and the retry is sent or not;
 * - frozen: a deeply frozen body is accepted or not.
 *
 * ```sh
 * deno run -A --no-check tests/bench/sdk_body_probe.ts
 * ```
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { generateText, type ModelMessage } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import {
  anthropicMessage,
  chatCompletion,
  openaiResponse,
  serveLoopback,
  StatusReply,
} from "../adapters/loopback.ts";
import { deepFreeze } from "../../src/conversation/checks.ts";

type Client = "anthropic" | "chat" | "responses" | "ai-sdk";
const CLIENTS: readonly Client[] = ["anthropic", "chat", "responses", "ai-sdk"];

/** A user message of `text` in the client's shape. */
function userMessage(client: Client, text: string): Record<string, unknown> {
  return client === "chat" || client === "responses"
    ? { role: "user", content: text }
    : { role: "user", content: [{ type: "text", text }] };
}

function reply(client: Client): unknown {
  const text = [{ type: "text", text: "ok" }];
  return client === "chat"
    ? chatCompletion({ role: "assistant", content: "ok" })
    : client === "responses"
    ? openaiResponse([{
      type: "message",
      id: "msg_1",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: "ok", annotations: [] }],
    }])
    : anthropicMessage(text);
}

/** Sends `messages` (and a system part, tools) with the client, `retries` allowed. */
function send(
  client: Client,
  baseURL: string,
  messages: unknown[],
  retries: number,
): Promise<unknown> {
  const system = [{ type: "text", text: "You are a coding agent." }];
  switch (client) {
    case "anthropic":
      return new Anthropic({ apiKey: "k", baseURL, maxRetries: retries })
        .messages.create({
          model: "claude-sonnet-4-5",
          max_tokens: 64,
          system: system as Anthropic.TextBlockParam[],
          messages: messages as Anthropic.MessageParam[],
        });
    case "chat":
      return new OpenAI({ apiKey: "k", baseURL, maxRetries: retries }).chat
        .completions.create({
          model: "gpt-5.6",
          messages: messages as OpenAI.ChatCompletionMessageParam[],
        });
    case "responses":
      return new OpenAI({ apiKey: "k", baseURL, maxRetries: retries })
        .responses.create({
          model: "gpt-5.6",
          input: messages as OpenAI.Responses.ResponseInput,
        });
    case "ai-sdk":
      return generateText({
        model: createAnthropic({ apiKey: "k", baseURL })("claude-sonnet-4-5"),
        system: "You are a coding agent.",
        messages: messages as ModelMessage[],
        maxRetries: retries,
      });
  }
}

/** Whether the bytes sent hold a message pushed once `when` has come. */
async function probe(
  client: Client,
  when: "after the call" | "before the retry" | "frozen",
): Promise<string> {
  const messages: unknown[] = [userMessage(client, "Fix the test.")];
  const bodies: string[] = [];
  const late = userMessage(client, "PUSHED LATE");
  try {
    await serveLoopback((request) => {
      bodies.push(request.body);
      if (when === "before the retry" && bodies.length === 1) {
        messages.push(late);
        return new StatusReply(500, {
          type: "error",
          error: { type: "api_error", message: "try again" },
        });
      }
      return reply(client);
    }, async (baseURL) => {
      if (when === "frozen") {
        await send(client, baseURL, deepFreeze(messages), 0);
        return;
      }
      const pending = send(
        client,
        baseURL,
        messages,
        when === "before the retry" ? 1 : 0,
      );
      if (when === "after the call") messages.push(late);
      await pending;
    });
  } catch (error) {
    return `refused (${String(error).slice(0, 120)})`;
  }
  if (when === "frozen") return "accepted";
  const last = bodies[bodies.length - 1];
  return last.includes("PUSHED LATE") ? "sent" : "not sent";
}

for (const client of CLIENTS) {
  const afterCall = await probe(client, "after the call");
  const retry = await probe(client, "before the retry");
  const frozen = await probe(client, "frozen");
  console.log(
    `${client}: a message pushed after the call returned: ${afterCall}; ` +
      `pushed before the retry: ${retry}; a frozen array: ${frozen}`,
  );
}
