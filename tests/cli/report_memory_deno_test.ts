/**
 * Issue 49 (SPEC 10.4): `rxprompt report` holds what the recording holds,
 * not every request's whole body. The report of a 2,000-step recording
 * (4 MB: tool round trips, registry changes) runs in a process whose heap
 * is capped at 128 MB (it needs about 64 MB); 0.4 held every rebuilt body
 * at once and ran out of a 512 MB heap there (it needed 2 GB, and 8 GB did
 * not do for 10,000 steps). Deno-only: runs the command as a subprocess.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { longRecording } from "../conversation/long_recording.ts";
import { cliArgs, ROOT } from "./cli_process.ts";

const STEPS = 2_000;
const HEAP_MB = 128;

describe("rxprompt report's memory", () => {
  it(`reports ${STEPS} steps within a ${HEAP_MB} MB heap`, async () => {
    const { text } = await longRecording("anthropic", STEPS);
    const file = await Deno.makeTempFile({ suffix: ".jsonl" });
    try {
      await Deno.writeTextFile(file, text);
      const [run, ...rest] = cliArgs(["report", file, "--json"]);
      const { code, stdout, stderr } = await new Deno.Command(
        Deno.execPath(),
        {
          args: [run, `--v8-flags=--max-old-space-size=${HEAP_MB}`, ...rest],
          cwd: ROOT,
          env: { NO_COLOR: "1" },
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        },
      ).output();
      assert.equal(code, 0, new TextDecoder().decode(stderr).slice(-2000));
      const result = JSON.parse(new TextDecoder().decode(stdout));
      assert.equal(result.report.requests.length, STEPS);
    } finally {
      await Deno.remove(file);
    }
  });
});
