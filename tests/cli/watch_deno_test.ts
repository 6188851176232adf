/**
 * `rxprompt watch` run as a subprocess (SPEC 7.10): one JSON object per
 * line, a view when the registry changes and when the config file changes,
 * a config error that keeps the watch alive, exit 0 on SIGTERM. Deno-only
 * (subprocesses).
 */
import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { cliArgs, lines, repoPath, ROOT } from "./cli_process.ts";

interface Event {
  event: string;
  reason?: string;
  prompt?: string;
  message?: string;
  diff?: {
    sections: { changed: string[] };
    cache: { brokenBy?: string };
  };
}

/** A running `rxprompt watch`, read line by line. */
interface Watcher {
  next(what: string): Promise<Event>;
  stop(): Promise<{ code: number; stderr: string }>;
}

const running: Watcher[] = [];
afterEach(async () => {
  for (const watcher of running.splice(0)) await watcher.stop();
});

function watch(args: string[]): Watcher {
  const child = new Deno.Command(Deno.execPath(), {
    args: cliArgs(["watch", ...args]),
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = lines(child.stdout);
  const stderr = new Response(child.stderr).text();
  let stopped: Promise<{ code: number; stderr: string }> | undefined;
  const watcher: Watcher = {
    async next(what) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`timed out waiting for ${what}`)),
          20_000,
        );
      });
      try {
        const line = await Promise.race([stdout.next(), timeout]);
        assert.equal(line.done, false, `output ended before ${what}`);
        return JSON.parse(line.value as string);
      } finally {
        clearTimeout(timer);
      }
    },
    stop() {
      stopped ??= (async () => {
        try {
          child.kill("SIGTERM");
        } catch {
          // Already exited.
        }
        const { code } = await child.status;
        for await (const _ of stdout) { /* drain */ }
        return { code, stderr: await stderr };
      })();
      return stopped;
    },
  };
  running.push(watcher);
  return watcher;
}

/** Reads lines into `read` until `line` arrives. */
async function readUntil(
  output: AsyncGenerator<string>,
  line: string,
  read: string[],
): Promise<void> {
  for (;;) {
    const next = await output.next();
    assert.equal(next.done, false, `no ${JSON.stringify(line)} in ${read}`);
    read.push(next.value as string);
    if (next.value === line) return;
  }
}

/** A config in a temporary folder whose `rules` section reads `rules`. */
async function writeConfig(file: string, rules: string): Promise<void> {
  const mod = new URL("mod.ts", `file://${ROOT}`).href;
  await Deno.writeTextFile(
    file,
    `import { SystemPrompt } from ${JSON.stringify(mod)};\n` +
      `const prompt = new SystemPrompt({ includeHarnessIdentity: false });\n` +
      `prompt.section({ name: "rules", order: 10, text: ${
        JSON.stringify(rules)
      } });\n` +
      `prompt.section({ name: "tail", order: 20, text: "Stay." });\n` +
      `export default prompt;\n`,
  );
}

/** A config whose scope `reviewer` is keyed by an agent object. */
async function writeScopedConfig(file: string, persona: string): Promise<void> {
  const mod = new URL("mod.ts", `file://${ROOT}`).href;
  await Deno.writeTextFile(
    file,
    `import { SystemPrompt } from ${JSON.stringify(mod)};\n` +
      `const prompt = new SystemPrompt({ includeHarnessIdentity: false });\n` +
      `const reviewer = { id: "reviewer" };\n` +
      `prompt.section({ name: "rules", order: 10, text: "Be brief." });\n` +
      `prompt.scope(reviewer).section({ name: "persona", order: 20, text: ${
        JSON.stringify(persona)
      } });\n` +
      `export default { prompt, scopes: { reviewer } };\n`,
  );
}

describe("rxprompt watch", () => {
  it("keeps --scope across a reload when the scope key is an object", async () => {
    const dir = await Deno.makeTempDir();
    try {
      const file = `${dir}/prompt.config.ts`;
      await writeScopedConfig(file, "You review.");
      const watcher = watch([file, "--scope", "reviewer", "--json"]);
      const first = await watcher.next("the first view");
      assert.equal(first.prompt, "Be brief.\n\nYou review.");
      await writeScopedConfig(file, "You review closely.");
      const reloaded = await watcher.next("the reloaded view");
      assert.equal(reloaded.reason, "reload");
      assert.equal(
        reloaded.prompt,
        "Be brief.\n\nYou review closely.",
        "the reloaded config's own agent object is the scope",
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });

  it("prints a view with a diff each time the registry changes", async () => {
    const watcher = watch([
      repoPath("tests/cli/fixtures/ticking.ts"),
      "--json",
    ]);
    const first = await watcher.next("the first view");
    assert.equal(first.event, "view");
    assert.equal(first.reason, "start");
    assert.equal(first.diff, undefined);
    assert.match(first.prompt!, /^Be brief\.\n\nTick \d+\.$/);
    const second = await watcher.next("a view after invalidate()");
    assert.equal(second.reason, "change");
    assert.deepEqual(second.diff?.sections.changed, ["tick"]);
    assert.equal(second.diff?.cache.brokenBy, "section:tick");
    const { code } = await watcher.stop();
    assert.equal(code, 0, "SIGTERM ends the watch with exit 0");
  });

  it("re-renders when the config file changes, and survives a broken config", async () => {
    const dir = await Deno.makeTempDir();
    try {
      const file = `${dir}/prompt.config.ts`;
      await writeConfig(file, "Be brief.");
      const watcher = watch([file, "--json"]);
      const first = await watcher.next("the first view");
      assert.equal(first.prompt, "Be brief.\n\nStay.");

      await writeConfig(file, "Be thorough.");
      const reloaded = await watcher.next("the reloaded view");
      assert.equal(reloaded.event, "view");
      assert.equal(reloaded.reason, "reload");
      assert.equal(reloaded.prompt, "Be thorough.\n\nStay.");
      assert.deepEqual(reloaded.diff?.sections.changed, ["rules"]);
      assert.equal(reloaded.diff?.cache.brokenBy, "section:rules");

      await Deno.writeTextFile(file, "export default 42;\n");
      const broken = await watcher.next("the config error");
      assert.equal(broken.event, "config-error");
      assert.match(broken.message!, /the default export is a number \(42\)/);

      await writeConfig(file, "Be kind.");
      const fixed = await watcher.next("the view after the fix");
      assert.equal(fixed.reason, "reload");
      assert.equal(fixed.prompt, "Be kind.\n\nStay.");
      assert.deepEqual(
        fixed.diff?.sections.changed,
        ["rules"],
        "diffed against the last printed view",
      );
      const { code, stderr } = await watcher.stop();
      assert.equal(code, 0);
      assert.equal(stderr, "");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });

  it("prints the prompt, then what changed, as text", async () => {
    const dir = await Deno.makeTempDir();
    try {
      const file = `${dir}/prompt.config.ts`;
      await writeConfig(file, "Be brief.");
      const child = new Deno.Command(Deno.execPath(), {
        args: cliArgs(["watch", file]),
        cwd: ROOT,
        env: { NO_COLOR: "1" },
        stdin: "null",
        stdout: "piped",
        stderr: "null",
      }).spawn();
      const output = lines(child.stdout);
      const read: string[] = [];
      const until = (line: string) => readUntil(output, line, read);
      await until("Stay.");
      await writeConfig(file, "Be thorough.");
      await until('  + "Be thorough.\\n\\nStay."');
      child.kill("SIGTERM");
      assert.equal((await child.status).code, 0);
      for await (const _ of output) { /* drain */ }
      assert.deepEqual(read, [
        "--- the global view: first view ---",
        "Be brief.",
        "",
        "Stay.",
        "--- the global view: config reloaded ---",
        "cache: broken by section:rules (tools stable, 3 of 19 system prompt characters unchanged; Anthropic cache markers still hit: 0 of 1)",
        "sections: ~rules",
        "system prompt: first change at offset 3, in section rules",
        '  - "Be brief.\\n\\nStay."',
        '  + "Be thorough.\\n\\nStay."',
      ]);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});
