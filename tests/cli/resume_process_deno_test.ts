/**
 * A harness that restarts in a new process (issue "save and resume"): one
 * process runs the on-call example session the README's way through the
 * conversation object and stops with its last request in flight, keeping
 * each conversation's recording (`save()`); a second process builds the
 * session afresh (a fresh registry), resumes the conversations from those
 * recordings, and builds every later request. Its bodies equal, byte for
 * byte, those of the same session run straight through, so the cache reads
 * the same tokens. Deno-only: it spawns Deno subprocesses.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { simulateCache } from "../../adapters/cache/mod.ts";
import { requestsOf, runSession } from "../../cli/session.ts";
import { readmeWay } from "../../cli/readme_way.ts";
import onCall from "../../examples/sessions/on_call.ts";
import { repoPath, ROOT } from "./cli_process.ts";

const AT = 25;

async function harness(args: string[], input?: string): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      repoPath("tests/cli/fixtures/resume_harness_deno.ts"),
      ...args,
    ],
    cwd: ROOT,
    stdin: input === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (input !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(input));
    await writer.close();
  }
  const { code, stdout, stderr } = await child.output();
  const decoder = new TextDecoder();
  assert.equal(code, 0, decoder.decode(stderr));
  return decoder.decode(stdout);
}

describe("a harness resumed in a new process", () => {
  it("builds the same bodies as the session run straight through", async () => {
    const straight = await runSession(await onCall(), { readme: readmeWay });
    const saved = await harness(["save", String(AT)]);
    // What the first process kept: each conversation's recording.
    assert.match(saved, /"recording":"\{\\"format\\"/);
    const resumed = JSON.parse(await harness(["resume", String(AT)], saved));
    assert.equal(resumed.length, straight.length - AT);
    const expected = straight.slice(AT).map((step) => ({
      index: step.index,
      time: step.time,
      bodies: step.bodies.get("readme"),
    }));
    assert.deepEqual(resumed, JSON.parse(JSON.stringify(expected)));
    // The same bodies after the straight run's own first AT requests: the
    // cache serves the resumed run what it serves the straight one.
    for (const form of ["anthropic-messages", "openai-chat"] as const) {
      const requests = requestsOf(straight, "readme", form);
      const spliced = [
        ...requests.slice(0, AT),
        ...resumed.map((step: { time: number; bodies: never }) => ({
          body: step.bodies[form],
          time: step.time,
          thread: "main",
        })),
      ];
      const provider = form === "anthropic-messages"
        ? "anthropic"
        : "openai-explicit";
      const count = (text: string) => Math.ceil(text.length / 4);
      assert.equal(
        simulateCache(spliced, { provider, countTokens: count }).totals
          .cachedTokens,
        simulateCache(requests, { provider, countTokens: count }).totals
          .cachedTokens,
      );
    }
  });
});
