/**
 * The newcomer path on Bedrock and Gemini (issue 50), as `check_npm.ts`
 * runs it in a project that installed the package and the SDKs: one
 * request of `converseConversation` through `BedrockRuntimeClient` and one
 * of `geminiConversation` through `@google/genai`, each to a loopback
 * server answering with cache usage, recorded and reported. The same code
 * as JavaScript (Node 22, Node 24, Bun) and as TypeScript (`tsc --noEmit`:
 * the bodies go into the SDKs' typed calls without a cast).
 *
 * @module
 */

/** The SDK packages the newcomer installs besides the package. */
export const NEWCOMER_SDKS: readonly string[] = [
  "@aws-sdk/client-bedrock-runtime",
  "@smithy/node-http-handler",
  "@google/genai",
];

const BODY = `const seen: string[] = [];
const server = createServer((request, response) => {
  let text = "";
  request.on("data", (chunk) => text += chunk);
  request.on("end", () => {
    seen.push(request.url ?? "");
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(
      (request.url ?? "").includes(":generateContent")
        ? {
          candidates: [{
            content: { role: "model", parts: [{ text: "ok" }] },
            finishReason: "STOP",
          }],
          usageMetadata: {
            promptTokenCount: 12,
            cachedContentTokenCount: 8,
            candidatesTokenCount: 1,
          },
        }
        : {
          output: { message: { role: "assistant", content: [{ text: "ok" }] } },
          stopReason: "end_turn",
          usage: {
            inputTokens: 4,
            outputTokens: 1,
            totalTokens: 13,
            cacheReadInputTokens: 8,
            cacheWriteInputTokens: 0,
          },
          metrics: { latencyMs: 1 },
        },
    ));
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(0)));
const url = "http://127.0.0.1:" + (server.address() as AddressInfo).port;
const countTokens = (text: string) => Math.ceil(text.length / 4);
try {
  const prompt = new SystemPrompt({ persona: "You review pull requests." });
  const client = new BedrockRuntimeClient({
    region: "us-east-1",
    endpoint: url,
    credentials: { accessKeyId: "AKIDNEWCOMER", secretAccessKey: "newcomer" },
    requestHandler: new NodeHttpHandler(),
  });
  const bedrock = converseConversation(prompt, {
    modelId: "anthropic.claude-sonnet-4-5",
  });
  bedrock.user("Review #42.");
  bedrock.record(await client.send(new ConverseCommand(await bedrock.request())));
  assert.equal(bedrock.report({ countTokens }).requests[0].cacheReadTokens, 8);
  const ai = new GoogleGenAI({ apiKey: "newcomer", httpOptions: { baseUrl: url } });
  const gemini = geminiConversation(prompt, { model: "gemini-3-flash" });
  gemini.user("Review #42.");
  gemini.record(await ai.models.generateContent(await gemini.request()));
  assert.equal(gemini.report({ countTokens }).requests[0].cacheReadTokens, 8);
  assert.match(seen[0], /^\\/model\\/[^/]+\\/converse$/);
  assert.match(seen[1], /:generateContent$/);
  await prompt.dispose();
  console.log("newcomer: a Bedrock and a Gemini request, recorded and reported");
} finally {
  server.close();
}
`;

const IMPORTS = `import assert from "node:assert/strict";
import { createServer } from "node:http";
import { BedrockRuntimeClient, ConverseCommand } from "@aws-sdk/client-bedrock-runtime";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { GoogleGenAI } from "@google/genai";
import { SystemPrompt } from "@rxprompt/system-prompt";
import { converseConversation } from "@rxprompt/system-prompt/bedrock";
import { geminiConversation } from "@rxprompt/system-prompt/gemini";
`;

/** The newcomer's TypeScript (type-checked, not run). */
export const NEWCOMER_TS: string = IMPORTS +
  `import type { AddressInfo } from "node:net";\n\n` + BODY;

/** The newcomer's JavaScript: the TypeScript without its types. */
export const NEWCOMER_JS: string = IMPORTS + "\n" +
  BODY.replace("(server.address() as AddressInfo)", "server.address()")
    .replace("(text: string)", "(text)")
    .replace("const seen: string[] = [];", "const seen = [];");
