/**
 * The golden body fixtures of issue 45: every request body the forms, the
 * example sessions and the stateless adapters build, kept as digests
 * (`tests/golden/bodies/*.json`), so that a change that moves code around
 * is checked to send the same bytes (`tests/golden/bodies_deno_test.ts`).
 *
 * ```sh
 * deno run -A scripts/golden_bodies.ts --records   # the record digests again
 * deno run -A scripts/golden_bodies.ts --bodies    # the body digests (once!)
 * deno run -A scripts/golden_bodies.ts --dump DIR  # every value, to diff two checkouts
 * deno run -A scripts/golden_bodies.ts --recordings # the 0.4 recordings (once)
 * ```
 *
 * Body digests are taken once, from the main branch before the change,
 * and never again; record digests (`save()`, `report()`) change only
 * with the recording's or the report's format.
 *
 * @module
 */

import {
  BODY_GROUPS,
  digestFile,
  digestsOf,
  GOLDEN_DIR,
  RECORD_GROUPS,
} from "../tests/golden/groups_deno.ts";
import { anthropicConversation } from "../adapters/anthropic/mod.ts";
import {
  chatConversation,
  responsesConversation,
} from "../adapters/openai/mod.ts";
import { aiSdkConversation } from "../adapters/ai_sdk/mod.ts";
import { SystemPrompt } from "../mod.ts";
import { answerOf, type Kind, steppedClock } from "../tests/golden/variants.ts";

async function write(
  kind: "bodies" | "records",
  groups: Readonly<Record<string, () => Promise<Map<string, unknown>>>>,
): Promise<void> {
  await Deno.mkdir(new URL(`${kind}/`, GOLDEN_DIR), { recursive: true });
  for (const [group, build] of Object.entries(groups)) {
    const digests = digestsOf(await build());
    await Deno.writeTextFile(
      digestFile(kind, group),
      JSON.stringify(digests, null, 2) + "\n",
    );
    console.log(`${kind}/${group}.json: ${Object.keys(digests).length}`);
  }
}

async function dump(dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  for (
    const [group, build] of Object.entries({
      ...BODY_GROUPS,
      ...RECORD_GROUPS,
    })
  ) {
    const lines = [...await build()].map(([key, value]) =>
      JSON.stringify({ key, value })
    );
    await Deno.writeTextFile(`${dir}/${group}.jsonl`, lines.join("\n") + "\n");
  }
}

/** One small recording per form, as 0.4 writes it. */
async function recordings(): Promise<void> {
  const starts: Record<string, [Kind, (prompt: SystemPrompt) => unknown]> = {
    "anthropic-messages": [
      "anthropic",
      (prompt) =>
        anthropicConversation(prompt, {
          model: "claude-sonnet-4-5",
          max_tokens: 512,
          session: "golden-0.4",
          clock: steppedClock(),
        }),
    ],
    "openai-chat": ["chat", (prompt) =>
      chatConversation(prompt, {
        model: "gpt-5.6",
        cache: true,
        session: "golden-0.4",
        clock: steppedClock(),
      })],
    "openai-responses": [
      "responses",
      (prompt) =>
        responsesConversation(prompt, {
          model: "gpt-5.6",
          session: "golden-0.4",
          clock: steppedClock(),
        }),
    ],
    "ai-sdk": ["ai-sdk", (prompt) =>
      aiSdkConversation(prompt, {
        session: "golden-0.4",
        clock: steppedClock(),
      })],
  };
  await Deno.mkdir(new URL("recordings/", GOLDEN_DIR), { recursive: true });
  for (const [form, [kind, start]] of Object.entries(starts)) {
    const prompt = new SystemPrompt({ persona: "You are a coding agent." });
    prompt.section({
      name: "rules",
      order: 100,
      text: "Follow the house rules. ".repeat(300),
      cacheBreakpoint: true,
    });
    prompt.tools(() => ({
      schemas: [{
        name: "read_file",
        description: "Read a file.",
        parameters: { type: "object", properties: {} },
      }],
    }));
    const conv = start(prompt) as {
      user(text: string): void;
      request(context?: unknown, options?: object): Promise<unknown>;
      record(answer: unknown): { id: string }[];
      toolResult(id: string, content: string): void;
      save(): string;
    };
    conv.user("What is in a.ts?");
    await conv.request();
    const calls = conv.record(answerOf(kind, {
      n: 1,
      text: "",
      calls: [{ id: "call_1", name: "read_file", input: { path: "a.ts" } }],
    }));
    for (const call of calls) conv.toolResult(call.id, "export {};");
    await conv.request();
    conv.record(
      answerOf(kind, { n: 2, text: "It exports nothing.", calls: [] }),
    );
    conv.user("Thanks.");
    await conv.request(undefined, { awaiting: "person" });
    conv.record(answerOf(kind, { n: 3, text: "You are welcome.", calls: [] }));
    await Deno.writeTextFile(
      new URL(`recordings/${form}.jsonl`, GOLDEN_DIR),
      conv.save(),
    );
    await prompt.dispose();
    console.log(`recordings/${form}.jsonl`);
  }
}

if (import.meta.main) {
  const args = Deno.args;
  if (args.includes("--recordings")) await recordings();
  if (args.includes("--bodies")) await write("bodies", BODY_GROUPS);
  if (args.includes("--records")) await write("records", RECORD_GROUPS);
  const at = args.indexOf("--dump");
  if (at >= 0) await dump(args[at + 1]);
}
