/**
 * SPEC 10.2: the history an AI SDK conversation's client-side summary
 * starts. Turns alternate after it, whatever provider the AI SDK sends to:
 * the summarizing instruction as the user's message, then the summary as
 * the assistant's (`@ai-sdk/google` sends each message as a turn of its
 * own, and Gemini refuses two user turns in a row: the round trip is in
 * compaction_ai_sdk_sdk_test.ts). A recording made when the summary was
 * one user message resumes to its own bytes: the recording keeps its start.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt } from "../../mod.ts";
import {
  aiSdkConversation,
  resumeAiSdkConversation,
} from "../../adapters/ai_sdk/mod.ts";
import { unmarked } from "./helpers.ts";

const INSTRUCTION =
  "Summarize the conversation so far for your own later use: the task, " +
  "the decisions taken and why, the files and facts that matter, what was " +
  "done and what is left. Answer with the summary only.";
const CONTEXT = "Runtime context (replaces any earlier runtime context):\n" +
  "On main.";

function registry(): SystemPrompt {
  const prompt = new SystemPrompt({ persona: "You are a coding agent." });
  prompt.runtimeContext({ name: "git", order: 0, text: "On main." });
  return prompt;
}

/** A `generateText` result answering `text`, `read` of its 1,000 tokens cached. */
function answer(text: string, read = 0) {
  return {
    response: {
      messages: [{
        role: "assistant" as const,
        content: [{ type: "text" as const, text }],
      }],
    },
    usage: {
      inputTokens: 1_000,
      inputTokenDetails: {
        noCacheTokens: 1_000 - read,
        cacheReadTokens: read,
        cacheWriteTokens: 0,
      },
      outputTokens: 2,
      totalTokens: 1_002,
    },
  };
}

const user = (...texts: string[]) => ({
  role: "user",
  content: texts.map((text) => ({ type: "text", text })),
});
const assistant = (text: string) => ({
  role: "assistant",
  content: [{ type: "text", text }],
});

/** One step answered, then a compaction recorded (not yet swapped in). */
async function compacted(prompt: SystemPrompt) {
  let now = Date.UTC(2026, 11, 7);
  const conv = aiSdkConversation(prompt, { clock: () => now++ });
  conv.user("Task 0.");
  await conv.request();
  conv.record(answer("Done."));
  const compaction = await conv.compact();
  // It reads the prefix the step wrote.
  compaction.record(answer("The summary.", 900));
  return conv;
}

describe("the history an AI SDK summary starts (SPEC 10.2)", () => {
  it("the instruction as the user's message, the summary as the assistant's: turns alternate", async () => {
    const prompt = registry();
    const conv = await compacted(prompt);
    conv.user("Task 1.");
    const body = await conv.request();
    assert.deepEqual(unmarked(body.messages), [
      user(INSTRUCTION),
      assistant("The summary."),
      // What the summary dropped is told again: the runtime context whole.
      user("Task 1.", CONTEXT),
    ]);
    conv.record(answer("Done."));
    conv.user("Task 2.");
    const next = await conv.request();
    // ... once.
    assert.deepEqual(unmarked(next.messages.slice(2)), [
      user("Task 1.", CONTEXT),
      assistant("Done."),
      user("Task 2."),
    ]);
    await prompt.dispose();
  });

  it("report() judges the request after the summary a compaction", async () => {
    const prompt = registry();
    const conv = await compacted(prompt);
    conv.user("Task 1.");
    await conv.request();
    // The history the summary replaced is no longer read.
    conv.record(answer("Done.", 100));
    const requests = conv.report({ countTokens: (text) => text.length / 4 })
      .requests;
    assert.deepEqual(
      requests.map((request) => request.summarizes === true),
      [false, true, false],
    );
    assert.equal(requests[2].judgement?.verdict, "compaction");
    await prompt.dispose();
  });

  it("in the background: the steps taken while it ran follow the summary", async () => {
    const prompt = registry();
    const conv = aiSdkConversation(prompt);
    conv.user("Task 0.");
    await conv.request();
    conv.record(answer("Done."));
    const compaction = await conv.compact();
    conv.user("Task 1.");
    await conv.request();
    conv.record(answer("Done 1."));
    compaction.record(answer("The summary."));
    conv.user("Go on.");
    const body = await conv.request();
    assert.deepEqual(unmarked(body.messages), [
      user(INSTRUCTION),
      assistant("The summary."),
      user("Task 1."),
      assistant("Done 1."),
      user("Go on.", CONTEXT),
    ]);
    await prompt.dispose();
  });

  it("resumed before and after the swap, it sends the same bytes", async () => {
    const prompt = registry();
    const conv = await compacted(prompt);
    const before = resumeAiSdkConversation(prompt, conv.save());
    conv.user("Task 1.");
    before.user("Task 1.");
    const body = await conv.request();
    assert.deepEqual(await before.request(), body);
    conv.record(answer("Done."));
    const after = resumeAiSdkConversation(prompt, conv.save());
    conv.user("Task 2.");
    after.user("Task 2.");
    assert.deepEqual(await after.request(), await conv.request());
    await prompt.dispose();
  });

  it("a recording whose summary is one user message resumes to its own bytes", async () => {
    const prompt = registry();
    const resumed = resumeAiSdkConversation(prompt, MAIN_RECORDING);
    resumed.user("Task 1.");
    const body = await resumed.request();
    assert.deepEqual(unmarked(body.messages), [
      user("Summary of the conversation so far:\n\nThe summary."),
      user("Task 1.", CONTEXT),
    ]);
    resumed.record(answer("Done."));
    // Saved again, the compaction keeps the start it was recorded with.
    const again = resumeAiSdkConversation(prompt, resumed.save());
    again.user("Task 2.");
    resumed.user("Task 2.");
    assert.deepEqual(await again.request(), await resumed.request());
    await prompt.dispose();
  });
});

/**
 * `compacted(registry())`'s recording as 0.5's first AI SDK form saved it:
 * the summary in one user message (the compaction's `start`).
 */
const MAIN_RECORDING = [
  '{"format":"rxprompt-conversation","version":2,"form":"ai-sdk","session":"53552a09-6038-4ac8-8416-ee2d451b9ce4","options":{"cache":true,"awaiting":"agent"}}',
  '{"step":1,"at":0,"tail":[{"role":"user","content":[{"type":"text","text":"Task 0."},{"type":"text","text":"Runtime context (replaces any earlier runtime context):\\nOn main."}]}],"marks":[{"message":0,"block":1,"mark":{"type":"ephemeral"}}],"head":{"system":[{"role":"system","content":"You are an AI agent running inside an agent harness. Follow the instructions in this system prompt, use the tools you are given when they help, and report truthfully what you did and what you could not do.\\n\\nYou are a coding agent.","providerOptions":{"anthropic":{"cacheControl":{"type":"ephemeral"}}}}],"tools":[]},"tools":[],"state":{},"runtimeContext":"On main.","headSections":[{"name":"harness:identity","order":-100,"text":"You are an AI agent running inside an agent harness. Follow the instructions in this system prompt, use the tools you are given when they help, and report truthfully what you did and what you could not do."},{"name":"deployment:persona","order":0,"text":"You are a coding agent."}],"awaiting":"agent","response":{"response":{"messages":[{"role":"assistant","content":[{"type":"text","text":"Done."}]}]},"usage":{"inputTokens":1000,"inputTokenDetails":{"noCacheTokens":1000,"cacheReadTokens":0,"cacheWriteTokens":0},"outputTokens":2,"totalTokens":1002}},"usage":{"inputTokens":1000,"inputTokenDetails":{"noCacheTokens":1000,"cacheReadTokens":0,"cacheWriteTokens":0},"outputTokens":2,"totalTokens":1002},"reported":{"source":"ai-sdk","diagnosis":{"status":"none"},"cacheReadTokens":0,"cacheWriteTokens":0,"inputTokens":1000,"outputTokens":2},"sent":"2026-12-07T00:00:00.000Z","time":"2026-12-07T00:00:00.001Z"}',
  '{"step":2,"kind":"compaction","at":2,"tail":[{"role":"user","content":[{"type":"text","text":"Summarize the conversation so far for your own later use: the task, the decisions taken and why, the files and facts that matter, what was done and what is left. Answer with the summary only."}]}],"marks":[{"message":0,"block":1,"mark":{"type":"ephemeral"}}],"head":{"system":[{"role":"system","content":"You are an AI agent running inside an agent harness. Follow the instructions in this system prompt, use the tools you are given when they help, and report truthfully what you did and what you could not do.\\n\\nYou are a coding agent.","providerOptions":{"anthropic":{"cacheControl":{"type":"ephemeral"}}}}],"tools":[]},"awaiting":"agent","response":{"response":{"messages":[{"role":"assistant","content":[{"type":"text","text":"The summary."}]}]},"usage":{"inputTokens":1000,"inputTokenDetails":{"noCacheTokens":100,"cacheReadTokens":900,"cacheWriteTokens":0},"outputTokens":2,"totalTokens":1002}},"start":[{"role":"user","content":[{"type":"text","text":"Summary of the conversation so far:\\n\\nThe summary."}]}],"usage":{"inputTokens":1000,"inputTokenDetails":{"noCacheTokens":100,"cacheReadTokens":900,"cacheWriteTokens":0},"outputTokens":2,"totalTokens":1002},"sent":"2026-12-07T00:00:00.002Z","time":"2026-12-07T00:00:00.003Z","reported":{"source":"ai-sdk","diagnosis":{"status":"none"},"cacheReadTokens":900,"cacheWriteTokens":0,"inputTokens":1000,"outputTokens":2}}',
].join("\n") + "\n";
