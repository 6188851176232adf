/**
 * The tests' Anthropic Messages server (`thinking_server.ts`) on a
 * loopback port, with a real `@anthropic-ai/sdk` client pointed at it:
 * what every Anthropic SDK round trip of the tests starts from.
 */
import Anthropic from "@anthropic-ai/sdk";
import { serveLoopback } from "./loopback.ts";
import {
  type AnthropicServer,
  anthropicServer,
  type AnthropicServerOptions,
} from "./thinking_server.ts";

/**
 * Runs `run` with a client of a fresh server (64-token cache minimum
 * unless `options` say otherwise), closed once `run` settles.
 */
export async function withAnthropicServer<T>(
  options: AnthropicServerOptions,
  run: (client: Anthropic, server: AnthropicServer) => Promise<T>,
): Promise<T> {
  const server = anthropicServer({ minimumCacheTokens: 64, ...options });
  return await serveLoopback(
    server.answer,
    (baseURL) =>
      run(
        new Anthropic({
          apiKey: "sk-loopback",
          baseURL,
          maxRetries: 0,
          timeout: 10_000,
        }),
        server,
      ),
  );
}
