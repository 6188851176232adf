// Deno-only: save and resume across processes (SPEC 9.1, issue 41). Process
// A (a real subprocess, process_a.ts) runs a conversation and records it
// line by line; this process resumes from the file.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { resumeAnthropicConversation } from "../../adapters/anthropic/mod.ts";
import { continues } from "./helpers.ts";
import { processAgent, RESTART } from "./process_agent.ts";

const SCRIPT = new URL("./process_a.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

async function runA(mode: "clean" | "crash"): Promise<{
  recording: string;
  stdout: string;
  code: number;
}> {
  const path = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    const { code, stdout } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--config", CONFIG, "-A", SCRIPT, path, mode],
      stdin: "null",
      stdout: "piped",
      stderr: "inherit",
    }).output();
    return {
      recording: await Deno.readTextFile(path),
      stdout: new TextDecoder().decode(stdout).trim(),
      code,
    };
  } finally {
    await Deno.remove(path);
  }
}

describe("save and resume across processes", () => {
  it("B's next body equals, byte for byte, the one A would have sent; a later day goes in after it", async () => {
    const a = await runA("clean");
    assert.equal(a.code, 0);
    const b = processAgent("Monday, 23:50");
    b.live.next({ schemas: [RESTART] });
    const conv = resumeAnthropicConversation(b.prompt, a.recording);
    assert.deepEqual(conv.resumed, { steps: 3, truncated: false });
    conv.toolResult("t2", "ok");
    conv.toolResult("t3", "restarted");
    const next = await conv.request();
    assert.equal(JSON.stringify(next), a.stdout);
    conv.record({
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: "Back up." }],
    });
    b.day = "Tuesday";
    conv.user("Thanks.");
    const later = await conv.request();
    assert.ok(continues(JSON.parse(a.stdout).messages, later.messages));
    const last = later.messages.at(-1)!.content.at(-1) as { text: string };
    assert.match(last.text, /Today is Tuesday\.$/);
    await b.prompt.dispose();
  });

  it("B resumes a recording A was killed while appending, and closes the open tool round", async () => {
    const a = await runA("crash");
    assert.notEqual(a.code, 0);
    assert.ok(!a.recording.endsWith("\n"));
    const b = processAgent("Monday, 23:50");
    b.live.next({ schemas: [RESTART] });
    const before = a.recording;
    const conv = resumeAnthropicConversation(b.prompt, a.recording);
    assert.equal(a.recording, before);
    assert.deepEqual(conv.resumed, { steps: 3, truncated: true });
    assert.deepEqual(conv.openCalls.map((call) => call.id), ["t2", "t3"]);
    conv.toolResult("t3", "restarted");
    conv.toolResult("t2", "ok");
    const body = await conv.request();
    assert.ok(continues(conv.messages, body.messages));
    const results = body.messages.at(-1)!.content as { tool_use_id?: string }[];
    assert.deepEqual(results.slice(0, 2).map((block) => block.tool_use_id), [
      "t2",
      "t3",
    ]);
    conv.record({
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: "Back up." }],
    });
    assert.equal(conv.messages.length, 8);
    await b.prompt.dispose();
  });
});
