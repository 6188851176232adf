// Deno-only: sends toConverse's output through the real BedrockRuntimeClient
// (static test credentials, the loopback server as its endpoint) to a server
// that checks the bodies as Bedrock does and answers from a prefix cache.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
  type Message,
} from "@aws-sdk/client-bedrock-runtime";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { SystemPrompt } from "../../mod.ts";
import {
  type ConverseOptions,
  toConverse,
  withConverseRuntimeContext,
} from "../../adapters/bedrock/mod.ts";
import { readReportedUsage } from "../../adapters/cache/mod.ts";
import {
  BEDROCK_ALTERNATION,
  BEDROCK_FIRST_USER,
  bedrockServer,
  withCacheServer,
} from "./loopback_caches.ts";
import { AWS_SDK_PERMISSIONS } from "./sdk_permissions.ts";

const MINIMUM = 256;
const MODEL = "anthropic.claude-sonnet-4-5";

function client(endpoint: string): BedrockRuntimeClient {
  return new BedrockRuntimeClient({
    region: "us-east-1",
    endpoint,
    credentials: { accessKeyId: "AKIDLOOPBACK", secretAccessKey: "loopback" },
    maxAttempts: 1,
    // HTTP/1.1: the client's default handler speaks HTTP/2, which the
    // loopback server does not.
    requestHandler: new NodeHttpHandler(),
  });
}

/** A registry with a long stable prefix, two tools and a runtime context. */
function registry(): { prompt: SystemPrompt; setDay: (day: string) => void } {
  const prompt = new SystemPrompt({ persona: "You review pull requests." });
  prompt.section({
    name: "house-rules",
    order: 10,
    text: "Follow the house rules, every one of them. ".repeat(40),
    cacheBreakpoint: true,
  });
  prompt.section({
    name: "branch",
    order: 20,
    text: "Working on the review branch.",
    stability: "agent",
  });
  prompt.tools(() => ({
    schemas: ["read_file", "write_file"].map((name) => ({
      name,
      description: `The ${name} tool.`,
      parameters: { properties: { path: { type: "string" } } },
    })),
  }));
  let day = "Monday";
  prompt.runtimeContext({
    name: "date",
    order: 0,
    text: () => `It is ${day}.`,
  });
  return { prompt, setDay: (next) => day = next };
}

/** Sends one step: the adapter's fields, the conversation so far. */
async function step(
  endpoint: string,
  prompt: SystemPrompt,
  { history, options }: { history: Message[]; options: ConverseOptions },
) {
  const { system, toolConfig, runtimeContext } = toConverse(
    await prompt.assemble(),
    options,
  );
  const input: ConverseCommandInput = {
    modelId: MODEL,
    system,
    toolConfig,
    messages: withConverseRuntimeContext(history, runtimeContext),
  };
  const response = await client(endpoint).send(new ConverseCommand(input));
  return readReportedUsage(response, "bedrock");
}

describe(
  "BedrockRuntimeClient round trip",
  { skip: AWS_SDK_PERMISSIONS },
  () => {
    it("writes the stable prefix once and reads it on the next steps", async () => {
      const { prompt, setDay } = registry();
      await withCacheServer(
        () => bedrockServer(MINIMUM),
        async (url, server) => {
          const history: Message[] = [{
            role: "user",
            content: [{ text: "Review #42." }],
          }];
          const options: ConverseOptions = { cache: true };
          const first = await step(url, prompt, { history, options });
          assert.equal(first.cacheReadTokens, 0);
          assert.ok(
            first.cacheWriteTokens! >= MINIMUM,
            `${first.cacheWriteTokens}`,
          );
          history.push({ role: "assistant", content: [{ text: "ok" }] });
          history.push({ role: "user", content: [{ text: "And #43?" }] });
          setDay("Tuesday"); // the runtime context is after the cached prefix
          const second = await step(url, prompt, { history, options });
          assert.equal(
            second.cacheReadTokens,
            first.cacheWriteTokens,
            "the second step reads what the first wrote",
          );
          assert.equal(second.cacheWriteTokens, 0);
          // inputTokens counts the reads back in: the tail is on top.
          assert.ok(second.inputTokens! > second.cacheReadTokens!);
          assert.deepEqual(server.rejections, []);
          const [body] = server.bodies as {
            system: unknown[];
            toolConfig: { tools: unknown[] };
          }[];
          // What reached the wire is what the adapter built.
          const built = toConverse(await prompt.assemble(), options);
          assert.deepEqual(body.toolConfig, built.toolConfig);
          assert.deepEqual(body.system, built.system);
          assert.deepEqual(server.paths, [
            `/model/${MODEL}/converse`,
            `/model/${MODEL}/converse`,
          ]);
        },
      );
      await prompt.dispose();
    });

    it("keeps the cached prefix across a gate with gating: keep", async () => {
      const { prompt } = registry();
      let active = ["read_file", "write_file"];
      prompt.toolGate(() => active);
      await withCacheServer(
        () => bedrockServer(MINIMUM),
        async (url, server) => {
          const history: Message[] = [{
            role: "user",
            content: [{ text: "Go." }],
          }];
          const keep: ConverseOptions = {
            cache: { ttl: "1h" },
            gating: "keep",
          };
          const first = await step(url, prompt, { history, options: keep });
          assert.deepEqual(first.cacheWrites, { "1h": first.cacheWriteTokens });
          active = ["read_file"];
          const kept = await step(url, prompt, { history, options: keep });
          assert.equal(kept.cacheReadTokens, first.cacheWriteTokens);
          // Leaving the gated tool out changes the tools: nothing read.
          const removed = await step(url, prompt, {
            history,
            options: { cache: { ttl: "1h" } },
          });
          assert.equal(removed.cacheReadTokens, 0);
          assert.deepEqual(server.rejections, []);
        },
      );
      await prompt.dispose();
    });

    it("meets a server that refuses five cache points and increasing lifetimes", async () => {
      const { prompt } = registry();
      await withCacheServer(
        () => bedrockServer(MINIMUM),
        async (url, server) => {
          const fields = toConverse(await prompt.assemble(), { cache: true });
          const marked: Message = {
            role: "user",
            content: [{ text: "Hi." }, { cachePoint: { type: "default" } }],
          };
          const twice: Message = {
            role: "user",
            content: [
              ...marked.content!,
              { text: "More." },
              { cachePoint: { type: "default" } },
            ],
          };
          const send = (input: Omit<ConverseCommandInput, "modelId">) =>
            client(url).send(new ConverseCommand({ modelId: MODEL, ...input }));
          const points = JSON.stringify(fields).split('"cachePoint"').length -
            1;
          assert.equal(points, 3); // the default leaves one for the conversation
          await assert.rejects(
            send({
              system: fields.system,
              toolConfig: fields.toolConfig,
              messages: [twice],
            }),
          );
          const hour = toConverse(await prompt.assemble(), { cache: true });
          const longer: Message = {
            role: "user",
            content: [{ text: "Hi." }, {
              cachePoint: { type: "default", ttl: "1h" },
            }],
          };
          await assert.rejects(
            send({
              system: hour.system,
              toolConfig: hour.toolConfig,
              messages: [longer],
            }),
          );
          assert.deepEqual(server.rejections, [
            "A maximum of 4 cache points may be provided. Found 5.",
            "cache point lifetimes must not increase",
          ]);
          // A 5-minute point after the adapter's 1-hour ones is accepted.
          const oneHour = toConverse(await prompt.assemble(), {
            cache: { ttl: "1h" },
          });
          await send({
            system: oneHour.system,
            toolConfig: oneHour.toolConfig,
            messages: [marked],
          });
          assert.equal(server.bodies.length, 1);
        },
      );
      await prompt.dispose();
    });
    it("sends the runtime context after a person's message and after tool results", async () => {
      const { prompt } = registry();
      await withCacheServer(
        () => bedrockServer(MINIMUM),
        async (url, server) => {
          const { system, toolConfig, runtimeContext } = toConverse(
            await prompt.assemble(),
          );
          const send = (messages: Message[]) =>
            client(url).send(
              new ConverseCommand({
                modelId: MODEL,
                system,
                toolConfig,
                messages,
              }),
            );
          const history: Message[] = [{
            role: "user",
            content: [{ text: "Review #42." }],
          }];
          // The old way: two user messages in a row, refused as Bedrock does.
          const refused = await send([...history, runtimeContext!]).then(
            () => undefined,
            (error: Error) => error,
          );
          assert.equal(refused?.name, "ValidationException");
          assert.equal(refused?.message, BEDROCK_ALTERNATION);
          await send(withConverseRuntimeContext(history, runtimeContext));
          history.push({
            role: "assistant",
            content: [{
              toolUse: { toolUseId: "t1", name: "read_file", input: {} },
            }],
          }, {
            role: "user",
            content: [{
              toolResult: { toolUseId: "t1", content: [{ text: "diff" }] },
            }],
          });
          await send(withConverseRuntimeContext(history, runtimeContext));
          // After the assistant's message the context is a turn of its own.
          const answered: Message[] = [...history, {
            role: "assistant",
            content: [{ text: "Looks good." }],
          }];
          await send(withConverseRuntimeContext(answered, runtimeContext));
          await assert.rejects(send(answered.slice(1)));
          assert.deepEqual(server.rejections, [
            BEDROCK_ALTERNATION,
            BEDROCK_FIRST_USER,
          ]);
          const last = server.bodies.map((body) =>
            (body.messages as Message[]).at(-1)
          );
          assert.deepEqual(last, [
            {
              role: "user",
              content: [{ text: "Review #42." }, ...runtimeContext!.content],
            },
            {
              role: "user",
              content: [history[2].content![0], ...runtimeContext!.content],
            },
            runtimeContext,
          ]);
          assert.equal(
            history[2].content!.length,
            1,
            "the history is unchanged",
          );
        },
      );
      await prompt.dispose();
    });
  },
);
