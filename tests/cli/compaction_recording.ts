/**
 * A Converse conversation's recording with one compaction (SPEC 10.2), its
 * usage as Bedrock would report it: three steps, each reading what the one
 * before wrote; the summarizing request, reading all but the instruction
 * and the last answer; the step after the swap, reading the tools and the
 * system prompt only; one more step.
 */
import { converseConversation } from "../../adapters/bedrock/mod.ts";
import { agent } from "../conversation/helpers.ts";

/** A Converse answer with `text` and this usage. */
function answer(text: string, read: number, written: number, input = 40) {
  return {
    output: { message: { role: "assistant" as const, content: [{ text }] } },
    stopReason: "end_turn" as const,
    usage: {
      inputTokens: input,
      outputTokens: 5,
      totalTokens: input + read + written + 5,
      cacheReadInputTokens: read,
      cacheWriteInputTokens: written,
    },
  };
}

/** The recording's text (JSON lines). */
export async function compactionRecording(): Promise<string> {
  const { prompt } = agent();
  const conv = converseConversation(prompt, {
    modelId: "anthropic.claude-sonnet-4-5",
    clock: () => 0,
  });
  let read = 0;
  for (const text of ["One.", "Two.", "Three."]) {
    conv.user(text);
    await conv.request();
    conv.record(answer("Ok.", read, 1_000));
    read += 1_000;
  }
  const compaction = await conv.compact();
  compaction.record(answer("They asked three things.", read, 0, 60));
  conv.user("Four.");
  await conv.request();
  conv.record(answer("Ok.", 800, 300));
  conv.user("Five.");
  await conv.request();
  conv.record(answer("Ok.", 1_100, 100));
  await prompt.dispose();
  return conv.save();
}
