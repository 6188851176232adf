// Deno-only: save and resume across processes (SPEC 9.1, issue 41), per
// provider form. Process A (a real subprocess, process_a_deno.ts) runs a
// conversation through the real SDK client against its own loopback server
// and records it line by line; this process resumes from the file and sends
// through the same client to another loopback server. The bodies compared
// are the ones the servers received.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { withScript } from "../adapters/loopback.ts";
import { SDK_PERMISSIONS } from "../adapters/sdk_permissions.ts";
import { continues } from "./helpers.ts";
import { processAgent, RESTART } from "./process_agent.ts";
import {
  FORM_NAMES,
  type FormName,
  MONDAY,
  SDK_FORMS,
  TUESDAY,
} from "./resume_forms_deno.ts";

const SCRIPT = new URL("./process_a_deno.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;
/** Process A is killed past this. */
const A_TIME_LIMIT_MS = 60_000;

async function runA(name: FormName, mode: "clean" | "crash"): Promise<{
  recording: string;
  stdout: string;
  code: number;
}> {
  const path = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    const { code, stdout } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--config", CONFIG, "-A", SCRIPT, path, mode, name],
      stdin: "null",
      stdout: "piped",
      stderr: "inherit",
      signal: AbortSignal.timeout(A_TIME_LIMIT_MS),
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

/** Which of `ids` appear in `items`' JSON, in order of first appearance. */
function idsIn(items: readonly unknown[], ids: readonly string[]): string[] {
  const text = JSON.stringify(items);
  return ids.filter((id) => text.includes(`"${id}"`)).sort((x, y) =>
    text.indexOf(`"${x}"`) - text.indexOf(`"${y}"`)
  );
}

describe("save and resume across processes", { skip: SDK_PERMISSIONS }, () => {
  for (const name of FORM_NAMES) {
    const form = SDK_FORMS[name];

    it(`${name}: B's next body equals, byte for byte, the one A would have sent; a later day goes in after it`, async () => {
      const a = await runA(name, "clean");
      assert.equal(a.code, 0);
      const b = processAgent("Monday, 23:50");
      b.live.next({ schemas: [RESTART] });
      const replies = [form.text("Back up."), form.text("Bye.")];
      await withScript(replies, async (baseURL, received) => {
        const lines: string[] = [];
        const conv = form.resume(b.prompt, a.recording, {
          onRecord: (line) => lines.push(line),
          clock: () => TUESDAY,
        });
        assert.deepEqual(conv.resumed, { steps: 3, truncated: false });
        conv.toolResult("t2", "ok");
        conv.toolResult("t3", "restarted");
        conv.record(await conv.send(baseURL));
        assert.equal(received[0], a.stdout);
        const listed = JSON.stringify(JSON.parse(a.stdout).tools);
        assert.equal(listed.includes('"restart_service"'), !form.inline);
        b.day = "Tuesday";
        conv.user("Thanks.");
        conv.record(await conv.send(baseURL));
        const before = form.items(a.stdout);
        const later = form.items(received[1]);
        assert.ok(continues(before, later));
        assert.ok(!a.stdout.includes("Tuesday"));
        assert.match(JSON.stringify(later.at(-1)), /Today is Tuesday\./);
        const steps = lines.map((line) => JSON.parse(line));
        assert.deepEqual(steps.map((step) => step.step), [4, 5]);
        const first = JSON.parse(a.recording.split("\n")[1]);
        assert.equal(first.sent, new Date(MONDAY).toISOString());
        assert.equal(steps[0].sent, new Date(TUESDAY).toISOString());
        const again = form.resume(b.prompt, a.recording + lines.join(""), {
          onRecord: () => {},
          clock: () => TUESDAY,
        });
        assert.deepEqual(again.resumed, { steps: 5, truncated: false });
      });
      await b.prompt.dispose();
    });

    it(`${name}: B resumes a recording A was killed while appending, and closes the open tool round`, async () => {
      const a = await runA(name, "crash");
      assert.notEqual(a.code, 0);
      assert.ok(!a.recording.endsWith("\n"));
      const b = processAgent("Monday, 23:50");
      b.live.next({ schemas: [RESTART] });
      const before = a.recording;
      await withScript([form.text("Back up.")], async (baseURL, received) => {
        const conv = form.resume(b.prompt, a.recording, {
          onRecord: () => {},
          clock: () => TUESDAY,
        });
        assert.equal(a.recording, before);
        assert.deepEqual(conv.resumed, { steps: 3, truncated: true });
        assert.deepEqual(conv.openCalls.map((call) => call.id), ["t2", "t3"]);
        conv.toolResult("t3", "restarted");
        conv.toolResult("t2", "ok");
        assert.deepEqual(conv.record(await conv.send(baseURL)), []);
        assert.deepEqual(conv.openCalls, []);
        const sent = form.items(a.stdout);
        const next = form.items(received[0]);
        assert.ok(continues(sent, next));
        const added = next.slice(sent.length);
        assert.deepEqual(idsIn(added, ["t1", "t2", "t3"]), ["t2", "t3"]);
        assert.match(JSON.stringify(added), /"restarted"/);
      });
      await b.prompt.dispose();
    });
  }
});
