// Deno-only: toAISDK's output through the real `generateText` with
// `@ai-sdk/amazon-bedrock` (cache marks as `providerOptions.bedrock
// .cachePoint`) and `@ai-sdk/google` (no marks: implicit caching) to the
// loopback servers of loopback_caches.ts. `ai` reads the host name when it
// loads, so the modules are loaded only when this run has the permissions.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt } from "../../mod.ts";
import type { AISDKOptions } from "../../adapters/ai_sdk/mod.ts";
import { readReportedUsage } from "../../adapters/cache/mod.ts";
import { rejects } from "../assertions.ts";
import { sampleAssembly } from "./fixtures.ts";
import {
  bedrockServer,
  geminiServer,
  withCacheServer,
} from "./loopback_caches.ts";
import { SDK_PERMISSIONS } from "./sdk_permissions.ts";

async function load() {
  const [adapter, ai, bedrock, google] = await Promise.all([
    import("../../adapters/ai_sdk/mod.ts"),
    import("ai"),
    import("@ai-sdk/amazon-bedrock"),
    import("@ai-sdk/google"),
  ]);
  return {
    toAISDK: adapter.toAISDK,
    withAISDKRuntimeContext: adapter.withAISDKRuntimeContext,
    ai,
    bedrock,
    google,
  };
}

const sdk = SDK_PERMISSIONS === false ? await load() : undefined;
const MINIMUM = 256;

function registry(): { prompt: SystemPrompt; setDay: (day: string) => void } {
  const prompt = new SystemPrompt({ persona: "You review pull requests." });
  prompt.section({
    name: "house-rules",
    order: 10,
    text: "Follow the house rules, every one of them. ".repeat(40),
    cacheBreakpoint: true,
  });
  prompt.tools(() => ({
    schemas: [{
      name: "read_file",
      description: "Read a file.",
      parameters: { type: "object", properties: { path: { type: "string" } } },
    }],
  }));
  let day = "Monday";
  prompt.runtimeContext({
    name: "date",
    order: 0,
    text: () => `It is ${day}.`,
  });
  return { prompt, setDay: (next) => day = next };
}

type Model = Parameters<NonNullable<typeof sdk>["ai"]["generateText"]>[0][
  "model"
];

/** Two steps of a conversation through generateText; the usages read. */
async function twoSteps(
  model: Model,
  options: AISDKOptions,
) {
  const { toAISDK, withAISDKRuntimeContext, ai } = sdk!;
  const { prompt, setDay } = registry();
  const messages: { role: "user" | "assistant"; content: string }[] = [
    { role: "user", content: "Review #42." },
  ];
  const send = async () => {
    const { system, tools, runtimeContext } = toAISDK(
      await prompt.assemble(),
      options,
    );
    const result = await ai.generateText({
      model,
      system,
      tools,
      messages: withAISDKRuntimeContext(messages, runtimeContext),
      maxRetries: 0,
    });
    return readReportedUsage(result, "ai-sdk");
  };
  const first = await send();
  messages.push({ role: "assistant", content: "ok" });
  messages.push({ role: "user", content: "And #43?" });
  setDay("Tuesday");
  const second = await send();
  await prompt.dispose();
  return { first, second };
}

describe("toAISDK with Bedrock and Gemini", { skip: SDK_PERMISSIONS }, () => {
  it("marks the system messages for @ai-sdk/amazon-bedrock: the second step reads", async () => {
    await withCacheServer(() => bedrockServer(MINIMUM), async (url, server) => {
      const bedrock = sdk!.bedrock.createAmazonBedrock({
        region: "us-east-1",
        accessKeyId: "AKIDLOOPBACK",
        secretAccessKey: "loopback",
        baseURL: url,
      });
      const model = bedrock("anthropic.claude-sonnet-4-5");
      const { first, second } = await twoSteps(model, {
        cache: { ttl: "1h" },
        cacheProviders: ["bedrock"],
      });
      assert.deepEqual(server.rejections, []);
      assert.equal(first.cacheReadTokens, 0);
      assert.ok(first.cacheWriteTokens! >= MINIMUM);
      assert.equal(second.cacheReadTokens, first.cacheWriteTokens);
      const [body] = server.bodies as { system: unknown[] }[];
      assert.deepEqual(
        body.system.flatMap((block) =>
          "cachePoint" in (block as object) ? [block] : []
        ),
        [{ cachePoint: { type: "default", ttl: "1h" } }],
      );
      // Without the bedrock key, nothing is marked: nothing cached.
      const plain = await twoSteps(model, { cache: true });
      assert.equal(plain.second.cacheReadTokens, 0);
    });
  });

  it("needs no marks for @ai-sdk/google: the layout is read implicitly", async () => {
    await withCacheServer(() => geminiServer(MINIMUM), async (url, server) => {
      const google = sdk!.google.createGoogleGenerativeAI({
        apiKey: "loopback",
        baseURL: `${url}/v1beta`,
      });
      const { first, second } = await twoSteps(google("gemini-3-flash"), {});
      assert.deepEqual(server.rejections, []);
      // The runtime context rides in the person's turn: turns alternate.
      const last = (server.bodies.at(-1)!.contents as unknown[]).at(-1);
      assert.deepEqual(last, {
        role: "user",
        parts: [{ text: "And #43?" }, { text: "It is Tuesday." }],
      });
      assert.equal(first.cacheReadTokens ?? 0, 0);
      assert.ok(second.cacheReadTokens! >= MINIMUM);
    });
  });

  it("writes both providers' marks when asked, and checks the option", () => {
    const { toAISDK } = sdk!;
    const { system } = toAISDK(sampleAssembly(), {
      cache: true,
      cacheProviders: ["anthropic", "bedrock"],
    });
    assert.deepEqual(
      (system as { providerOptions?: unknown }[]).map((message) =>
        message.providerOptions
      ),
      [
        {
          anthropic: { cacheControl: { type: "ephemeral" } },
          bedrock: { cachePoint: { type: "default" } },
        },
        {
          anthropic: { cacheControl: { type: "ephemeral" } },
          bedrock: { cachePoint: { type: "default" } },
        },
      ],
    );
    // Bedrock alone: no tool is marked, the budget goes to the blocks.
    const bedrockOnly = toAISDK({
      ...sampleAssembly(),
      sections: ["a", "b", "c"].map((name) => ({
        name,
        order: 0,
        text: name,
        cacheBreakpoint: true as const,
      })),
    }, { cache: true, cacheProviders: ["bedrock"] });
    assert.equal(
      JSON.stringify(bedrockOnly.tools).includes("cacheControl"),
      false,
    );
    assert.equal(
      (bedrockOnly.system as { providerOptions?: unknown }[]).filter((
        message,
      ) => message.providerOptions !== undefined).length,
      3,
    );
    assert.throws(
      () =>
        toAISDK(sampleAssembly(), {
          cache: true,
          cacheProviders: ["google"] as never,
        }),
      rejects("INVALID_CONFIG", "cacheProviders"),
    );
  });
});
