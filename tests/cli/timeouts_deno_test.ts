/**
 * Every wait of the rxprompt command is bounded by `--timeout`: a config or
 * a session that never settles (at load, in an assembly, in a step) ends
 * the command with exit 2 and one stderr line naming what did not settle,
 * within the limit plus a margin, and leaves no process behind; `watch`
 * reports a first view that did not settle and keeps watching. Deno-only
 * (subprocesses).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { cliArgs, lines, ROOT } from "./cli_process.ts";

const fixture = (name: string) => `tests/cli/fixtures/${name}.ts`;

/** The limit the tests pass, and the margin the command gets past it. */
const TIMEOUT_S = 2;
const MARGIN_MS = 5_000;

interface Ended {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `rxprompt ...args`; kills it (and fails) when it is still running
 * `--timeout` plus the margin after it started, so none is left behind.
 */
async function bounded(args: readonly string[]): Promise<Ended> {
  const child = new Deno.Command(Deno.execPath(), {
    args: cliArgs([...args, "--timeout", String(TIMEOUT_S)]),
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = new Response(child.stdout).text();
  const stderr = new Response(child.stderr).text();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), TIMEOUT_S * 1000 + MARGIN_MS);
  });
  const status = await Promise.race([child.status, late]);
  clearTimeout(timer);
  if (status === "late") {
    child.kill("SIGKILL");
    await child.status;
    assert.fail(
      `rxprompt ${args.join(" ")} still ran ${TIMEOUT_S} s + ` +
        `${MARGIN_MS / 1000} s after it started`,
    );
  }
  return { code: status.code, stdout: await stdout, stderr: await stderr };
}

/** Exit 2, one stderr line matching `pattern`, no runtime error. */
function assertTimedOut(run: Ended, pattern: RegExp): void {
  assert.equal(run.code, 2, `exit code; stderr: ${run.stderr}`);
  const stderr = run.stderr.trimEnd().split("\n");
  assert.equal(stderr.length, 1, `one stderr line, got: ${run.stderr}`);
  assert.match(stderr[0], pattern);
  assert.match(stderr[0], / within 2 s .*--timeout SECONDS$/);
  assert.doesNotMatch(run.stderr, /Top-level await|error: |\bat file:/);
}

describe("rxprompt --timeout bounds every wait", () => {
  it("check: an assembly that never settles while a timer is pending", async () => {
    const run = await bounded(["check", fixture("stalled_listener_ticking")]);
    assertTimedOut(
      run,
      /^rxprompt: config tests\/cli\/fixtures\/stalled_listener_ticking\.ts: the assembly of the global view did not settle within 2 s \(a provider or a listener never answered; it was aborted\)/,
    );
  });

  it("check --scope: names the scope that did not settle", async () => {
    const run = await bounded([
      "check",
      fixture("stalled_listener_ticking"),
      "--scope",
      "reviewer",
    ]);
    assertTimedOut(run, /: the assembly of scope "reviewer" did not settle/);
  });

  it("render: an assembly that never settles with nothing else pending", async () => {
    const run = await bounded(["render", fixture("stalled_listener")]);
    assertTimedOut(
      run,
      /^rxprompt: config tests\/cli\/fixtures\/stalled_listener\.ts: the assembly of the global view did not settle/,
    );
    assert.equal(run.stdout, "");
  });

  it("simulate: a session whose top-level await never settles", async () => {
    const run = await bounded(["simulate", fixture("session_never_loads")]);
    assertTimedOut(
      run,
      /^rxprompt: session tests\/cli\/fixtures\/session_never_loads\.ts did not finish loading within 2 s \(its import or its default export never settled\)/,
    );
  });

  it("simulate: a default export function that never settles, a timer pending", async () => {
    const run = await bounded(["simulate", fixture("session_pending_default")]);
    assertTimedOut(
      run,
      /^rxprompt: session tests\/cli\/fixtures\/session_pending_default\.ts did not finish loading/,
    );
  });

  it("simulate: a first step that never settles", async () => {
    const run = await bounded(["simulate", fixture("session_stalled_step")]);
    assertTimedOut(
      run,
      /^rxprompt: session tests\/cli\/fixtures\/session_stalled_step\.ts: step 0 did not settle within 2 s \(its step function never answered\)/,
    );
  });

  it("simulate: a step whose assembly never settles", async () => {
    const run = await bounded([
      "simulate",
      fixture("session_stalled_assembly"),
    ]);
    assertTimedOut(
      run,
      /^rxprompt: session tests\/cli\/fixtures\/session_stalled_assembly\.ts: the assembly of step 0 did not settle/,
    );
  });

  it("inspect and diff: the assembly is bounded too", async () => {
    for (
      const args of [
        ["inspect", fixture("stalled_listener")],
        ["diff", fixture("stalled_listener"), fixture("stalled_listener")],
      ]
    ) {
      const run = await bounded(args);
      assertTimedOut(run, /: the assembly of the global view did not settle/);
      assert.equal(run.stdout, "");
    }
  });

  it("watch: reports a first view that did not settle, and keeps watching", async () => {
    const child = new Deno.Command(Deno.execPath(), {
      args: cliArgs([
        "watch",
        fixture("late_first_view"),
        "--json",
        "--timeout",
        "1",
      ]),
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const stdout = lines(child.stdout);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("no event in time")), 20_000);
    });
    try {
      const first = JSON.parse(
        (await Promise.race([stdout.next(), late])).value as string,
      );
      assert.equal(first.event, "error");
      assert.equal(first.reason, "start");
      assert.match(
        first.message,
        /^config tests\/cli\/fixtures\/late_first_view\.ts: the first view of the global view did not settle within 1 s .*; still watching$/,
      );
      const second = JSON.parse(
        (await Promise.race([stdout.next(), late])).value as string,
      );
      // The first view printed, once a change let an assembly settle.
      assert.equal(second.event, "view");
      assert.equal(second.reason, "start");
      assert.match(second.prompt, /You are terse\./);
    } finally {
      clearTimeout(timer);
      child.kill("SIGTERM");
      const { code } = await child.status;
      for await (const _ of stdout) { /* drain */ }
      assert.equal(code, 0);
    }
  });
});
