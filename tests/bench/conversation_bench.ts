/**
 * The conversation's cost per step (issue 33): `request()` on W1 after 20
 * and after 200 recorded steps, against `assemble()` + `toMessages` alone
 * (the baseline). The goal: at most 1.3× the baseline, growing linearly in
 * the history (the history is copied once per step, never re-rendered).
 */
import { anthropicConversation } from "../../adapters/anthropic/mod.ts";
import { toMessages } from "../../adapters/anthropic/mod.ts";
import { buildW1, W1_CONTEXT } from "./w1.ts";

const prompt = buildW1();
const context = W1_CONTEXT;

async function conversationOf(steps: number) {
  const conv = anthropicConversation(prompt, {
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
  });
  for (let step = 0; step < steps; step++) {
    conv.user(`Step ${step}: go on.`);
    await conv.request(context);
    conv.record({
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: `Done with step ${step}.` }],
    });
  }
  conv.user("Next.");
  return conv;
}

const short = await conversationOf(20);
const long = await conversationOf(200);

Deno.bench(
  "assemble + toMessages",
  { group: "step", baseline: true },
  async () => {
    toMessages(await prompt.assemble(context), {
      cache: true,
      gating: "keep",
    });
  },
);
Deno.bench("conversation request(), 20 steps", { group: "step" }, async () => {
  await short.request(context);
});
Deno.bench("conversation request(), 200 steps", { group: "step" }, async () => {
  await long.request(context);
});
