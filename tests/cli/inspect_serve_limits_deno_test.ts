/**
 * `rxprompt inspect --serve` held to its limits as a subprocess, read over
 * HTTP (no browser): it stays up when a replaced config's timer calls its
 * disposed registry and calls a config's `dispose` export; `--timeout`
 * bounds the page's own assemblies and the session's steps, and the page
 * listens before the session has run; a request with two `Host` headers
 * is a 400 (RFC 9112, 3.2). Deno-only (subprocesses).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { repoPath } from "./cli_process.ts";
import { serve, type Server } from "./inspect_server.ts";
import type { InspectorState } from "../../cli/inspect/serve.ts";

const MOD = JSON.stringify(repoPath("mod.ts"));
/** How long a test waits for the server to show something. */
const PATIENCE_MS = 30_000;

async function stateOf(server: Server): Promise<InspectorState> {
  const response = await fetch(server.url + "state");
  return await response.json();
}

/** Polls until `found` returns something; fails after PATIENCE_MS. */
async function until<T>(
  what: string,
  found: () => Promise<T | undefined> | T | undefined,
): Promise<T> {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const value = await found();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`never saw ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** A config whose timer invalidates its registry every 20 ms. */
function timerConfig(version: number, dispose?: string): string {
  return `import { SystemPrompt } from ${MOD};
const prompt = new SystemPrompt({ includeHarnessIdentity: false });
prompt.section({ name: "rules", order: 10, text: "Version ${version}." });
const timer = setInterval(() => prompt.invalidate(), 20);
export default ${
    dispose === undefined ? "prompt" : `{
  prompt,
  dispose() {
    clearInterval(timer);
    Deno.writeTextFileSync(${JSON.stringify(dispose)}, "disposed");
  },
}`
  };
`;
}

describe("rxprompt inspect --serve, its limits", () => {
  let folder: string;
  before(async () => {
    folder = await Deno.makeTempDir({ prefix: "rxprompt_serve_limits_" });
  });
  after(async () => {
    await Deno.remove(folder, { recursive: true }).catch(() => {});
  });

  it("stays up when a replaced config's timer calls its disposed registry, and says so once", async () => {
    const config = `${folder}/timer.config.ts`;
    await Deno.writeTextFile(config, timerConfig(1));
    const server = await serve([config]);
    try {
      await until("version 1", async () => {
        const state = await stateOf(server);
        return JSON.stringify(state.scopes).includes("Version 1.") || undefined;
      });
      await Deno.writeTextFile(config, timerConfig(2));
      // The old registry is disposed on reload while its timer still fires.
      const stray = await until("the stray call's line", () => {
        const lines = server.stderr().split("\n").filter((line) =>
          line.includes("disposed")
        );
        return lines.length > 0 ? lines : undefined;
      });
      const state = await stateOf(server);
      assert.match(JSON.stringify(state.scopes), /Version 2\./);
      assert.equal(stray.length, 1, server.stderr());
      assert.match(
        stray[0],
        /^rxprompt: the config's code threw outside an assembly \(the server goes on\): .*DISPOSED.*; export dispose from the config to stop its timers/,
      );
      // The timer fires every 20 ms: still one line, still serving.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal((await fetch(server.url + "state")).status, 200);
      assert.equal(
        server.stderr().split("\n").filter((line) => line.includes("disposed"))
          .length,
        1,
      );
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  it("calls the config's dispose export on reload and on stop", async () => {
    const config = `${folder}/disposing.config.ts`;
    const marker = (version: number) => `${folder}/disposed_${version}`;
    await Deno.writeTextFile(config, timerConfig(1, marker(1)));
    const server = await serve([config]);
    try {
      await until("version 1", async () => {
        const state = await stateOf(server);
        return JSON.stringify(state.scopes).includes("Version 1.") || undefined;
      });
      await Deno.writeTextFile(config, timerConfig(2, marker(2)));
      await until(
        "the first config disposed",
        async () => await exists(marker(1)) || undefined,
      );
      await until("version 2", async () => {
        const state = await stateOf(server);
        return JSON.stringify(state.scopes).includes("Version 2.") || undefined;
      });
      assert.equal(await exists(marker(2)), false);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
    assert.equal(await exists(marker(2)), true);
    assert.equal(server.stderr(), "");
  });

  it("bounds the page's own assemblies by --timeout, and shows the limit", async () => {
    const config = `${folder}/second_call_stalls.config.ts`;
    // The watch's assembly answers; the page's explain() never does.
    await Deno.writeTextFile(
      config,
      `import { SystemPrompt } from ${MOD};
const prompt = new SystemPrompt({ persona: "You are terse." });
let calls = 0;
prompt.onAssemble((_assembly, _context, next) =>
  ++calls % 2 === 0 ? new Promise(() => {}) : next()
);
export default prompt;
`,
    );
    for (
      const [path, what] of [
        [repoPath("tests/cli/fixtures/stalled_listener.ts"), "first view"],
        [config, "assembly"],
      ]
    ) {
      const server = await serve([path, "--timeout", "1"]);
      try {
        assert.equal((await stateOf(server)).timeoutMs, 1000);
        // On a busy machine the first view of the second config may be late
        // too: that says so first, and the stalled explain() follows.
        const pattern = new RegExp(
          `^config .*: the ${what} of the global view did not settle within 1 s`,
        );
        const state = await until(`the ${what}'s limit`, async () => {
          const state = await stateOf(server);
          return pattern.test(state.scopes[0]?.error ?? "") ? state : undefined;
        });
        assert.equal(state.status, "ready");
      } finally {
        assert.equal((await server.stop()).code, 0);
      }
    }
  });

  it("listens before the session has run, and bounds its steps by --timeout", async () => {
    const server = await serve([
      repoPath("tests/cli/fixtures/inspector.ts"),
      "--session",
      repoPath("tests/cli/fixtures/session_stalled_step.ts"),
      "--timeout",
      "3",
    ]);
    try {
      // The step stalls for 3 s, its teardown for 3 more: still running.
      const first = await stateOf(server);
      assert.equal(first.charting, true);
      assert.deepEqual(first.chartErrors, []);
      const done = await until("the session's end", async () => {
        const state = await stateOf(server);
        return state.charting ? undefined : state;
      });
      assert.equal(done.chartErrors.length, 1);
      assert.match(
        done.chartErrors[0],
        /^session error: session .*session_stalled_step\.ts: step 0 did not settle within 3 s/,
      );
      assert.match(server.stderr(), /within 3 s/);
      assert.doesNotMatch(server.stderr(), /10 s/);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  it("answers 400 to a request with two Host headers", async () => {
    const server = await serve([repoPath("tests/cli/fixtures/inspector.ts")]);
    const { port } = new URL(server.url);
    const ask = async (headers: string) => {
      const connection = await Deno.connect({
        hostname: "127.0.0.1",
        port: Number(port),
      });
      await connection.write(
        new TextEncoder().encode(
          `GET /state HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`,
        ),
      );
      const answer = await new Response(connection.readable).text();
      return answer.split("\r\n", 1)[0];
    };
    try {
      const own = `Host: 127.0.0.1:${port}\r\n`;
      assert.match(await ask(own), /^HTTP\/1\.1 200/);
      assert.match(
        await ask(own + "Host: evil.example\r\n"),
        /^HTTP\/1\.1 400/,
      );
      assert.match(await ask(own + own), /^HTTP\/1\.1 400/);
      assert.match(await ask(""), /^HTTP\/1\.1 400/);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });
});
