/**
 * The config loader of the rxprompt command (SPEC 7.10): the three shapes of
 * a config's default export, the brand that recognises a SystemPrompt, the
 * scopes and their contexts, and one clear line for every mistake.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt } from "../../mod.ts";
import { CliError } from "../../cli/cli_error.ts";
import { loadFailure, readConfig, target, targets } from "../../cli/config.ts";
import { disposeConfig } from "../../cli/assembly.ts";

const SOURCE = "prompt.config.ts";

function registry(): SystemPrompt {
  return new SystemPrompt({ includeHarnessIdentity: false });
}

/** Rejects with a one-line CliError naming the config and matching `pattern`. */
async function rejectsWith(exported: unknown, pattern: RegExp): Promise<void> {
  await assert.rejects(readConfig({ default: exported }, SOURCE), (error) => {
    assert.ok(error instanceof CliError, `a CliError, got ${error}`);
    assert.equal(error.message.includes("\n"), false, "one line");
    assert.ok(error.message.startsWith(`config ${SOURCE}`), error.message);
    assert.match(error.message, pattern);
    return true;
  });
}

describe("readConfig: the shapes of a default export", () => {
  it("takes a SystemPrompt: the global view only, an empty context", async () => {
    const prompt = registry();
    const config = await readConfig({ default: prompt }, SOURCE);
    assert.equal(config.prompt, prompt);
    assert.equal(config.source, SOURCE);
    assert.deepEqual([...config.scopes], []);
    assert.deepEqual(config.context(undefined), {});
    assert.deepEqual(targets(config), [{ name: undefined, key: undefined }]);
  });

  it("takes { prompt, scopes, context } and keeps the scopes' order", async () => {
    const prompt = registry();
    const agent = { id: "agent" };
    const config = await readConfig({
      default: {
        prompt,
        scopes: { reviewer: "reviewer", agent },
        context: (scope?: unknown) => ({ scope, cwd: "/repo" }),
      },
    }, SOURCE);
    assert.deepEqual([...config.scopes.keys()], ["reviewer", "agent"]);
    assert.equal(config.scopes.get("agent"), agent);
    assert.deepEqual(targets(config).map((t) => t.name), [
      undefined,
      "reviewer",
      "agent",
    ]);
    assert.deepEqual(config.context(agent), { scope: agent, cwd: "/repo" });
    assert.deepEqual(target(config, "agent"), { name: "agent", key: agent });
  });

  it("calls a function, sync or async, once, and reads what it returns", async () => {
    const prompt = registry();
    let calls = 0;
    const sync = await readConfig({
      default: () => {
        calls++;
        return prompt;
      },
    }, SOURCE);
    assert.equal(sync.prompt, prompt);
    const asynchronous = await readConfig({
      default: async () => {
        calls++;
        await Promise.resolve();
        return { prompt, scopes: { a: 1 } };
      },
    }, SOURCE);
    assert.equal(asynchronous.scopes.get("a"), 1);
    assert.equal(calls, 2);
  });

  it("takes a dispose export: disposeConfig calls it, then disposes the registry", async () => {
    const prompt = registry();
    const calls: string[] = [];
    const config = await readConfig({
      default: {
        prompt,
        dispose: () => {
          calls.push(prompt.disposed ? "after the registry" : "config");
        },
      },
    }, SOURCE);
    await disposeConfig(config);
    assert.deepEqual(calls, ["config"]);
    assert.equal(prompt.disposed, true);
    // A dispose that throws or never settles still lets the registry go.
    for (
      const dispose of [() => {
        throw new Error("x");
      }, () => new Promise(() => {})]
    ) {
      const other = registry();
      await disposeConfig(
        await readConfig({ default: { prompt: other, dispose } }, SOURCE),
        { timeoutMs: 50 },
      );
      assert.equal(other.disposed, true);
    }
  });

  it("takes a promise of a config", async () => {
    const prompt = registry();
    const config = await readConfig(
      { default: Promise.resolve(prompt) },
      SOURCE,
    );
    assert.equal(config.prompt, prompt);
  });

  it("recognises a SystemPrompt of another copy of the module by its brand", async () => {
    const copy = Object.create(registry());
    const other = { [Symbol.for("rxprompt.SystemPrompt")]: true };
    assert.equal((await readConfig({ default: copy }, SOURCE)).prompt, copy);
    assert.equal((await readConfig({ default: other }, SOURCE)).prompt, other);
    class Lookalike {
      assemble(): void {}
      watch(): void {}
    }
    await rejectsWith(
      new Lookalike(),
      /the default export is a Lookalike instance/,
    );
  });
});

describe("readConfig: the context of a scope", () => {
  it("sets the scope when the config's context leaves it out, keeping the prototype", async () => {
    class Context {
      cwd = "/repo";
      where(): string {
        return this.cwd;
      }
    }
    const config = await readConfig({
      default: {
        prompt: registry(),
        scopes: { a: "a" },
        context: () => new Context(),
      },
    }, SOURCE);
    const context = config.context("a") as Context & { scope: unknown };
    assert.equal(context.scope, "a");
    assert.equal(context.where(), "/repo");
    assert.equal("scope" in config.context(undefined), false);
  });

  it("passes the scope to a config without a context function", async () => {
    const config = await readConfig({
      default: { prompt: registry(), scopes: { a: "a" } },
    }, SOURCE);
    assert.deepEqual(config.context("a"), { scope: "a" });
  });

  it("rejects a context function that throws, returns no object, or another scope", async () => {
    const cases: [unknown, RegExp][] = [
      [() => {
        throw new Error("no cwd");
      }, /context\(\) failed for a scope: no cwd$/],
      [() => 7, /context\(\) returned a number \(7\) for a scope/],
      [() => null, /context\(\) returned null for a scope/],
      [
        () => ({ scope: "b" }),
        /context\(\) returned a context for another scope/,
      ],
    ];
    for (const [context, pattern] of cases) {
      const config = await readConfig({
        default: { prompt: registry(), scopes: { a: "a" }, context },
      }, SOURCE);
      assert.throws(() => config.context("a"), (error) => {
        assert.ok(error instanceof CliError);
        assert.match(error.message, pattern);
        return true;
      });
    }
  });
});

describe("readConfig: every mistake is one clear line", () => {
  it("names a module without a default export", async () => {
    await assert.rejects(
      readConfig({ prompt: registry() }, SOURCE),
      /^CliError: config prompt\.config\.ts has no default export; export default a SystemPrompt, \{ prompt, scopes\?, context\?, dispose\? \}/,
    );
  });

  const cases: [string, unknown, RegExp][] = [
    ["a number", 42, /the default export is a number \(42\)/],
    ["a string", "prompt", /the default export is a string/],
    ["null", null, /the default export is null/],
    ["undefined", undefined, /the default export is undefined/],
    ["an array", [registry()], /the default export is an array/],
    ["a Map", new Map(), /the default export is a Map instance/],
    [
      "the class itself",
      SystemPrompt,
      /exports the SystemPrompt class itself; export an instance/,
    ],
    ["a function that throws", () => {
      throw new TypeError("bad plugin");
    }, /its default export function failed: TypeError: bad plugin$/],
    [
      "an async function that rejects",
      () => Promise.reject(new Error("offline")),
      /function failed: offline$/,
    ],
    [
      "a function returning a function",
      () => () => registry(),
      /returned a function/,
    ],
    [
      "a function returning a number",
      () => 3,
      /the default export is a number \(3\)/,
    ],
    [
      "an unknown key",
      { prompt: registry(), scope: { a: 1 } },
      /unknown key "scope" in the default export; the keys are prompt, scopes, context and dispose/,
    ],
    [
      "a missing prompt",
      { scopes: {} },
      /prompt is undefined; it must be a SystemPrompt/,
    ],
    [
      "scopes as an array",
      { prompt: registry(), scopes: ["a"] },
      /scopes is an array; it must be an object mapping each scope name to its scope key/,
    ],
    [
      "a null scope key",
      { prompt: registry(), scopes: { a: null } },
      /scopes\.a is null; a scope key is any other value/,
    ],
    [
      "a context that is not a function",
      { prompt: registry(), context: {} },
      /context is an object; it must be a function/,
    ],
    [
      "a dispose that is not a function",
      { prompt: registry(), dispose: "clearInterval" },
      /dispose is a string; it must be a function that stops the config's own timers and callbacks, or absent/,
    ],
  ];
  it("rejects a rejected promise", async () => {
    // Made inside the test: a rejection left unhandled between tests fails
    // some runners.
    await rejectsWith(
      Promise.reject(new Error("gone")),
      /promise rejected: gone$/,
    );
  });

  for (const [what, exported, pattern] of cases) {
    it(`rejects ${what}`, async () => {
      await rejectsWith(exported, pattern);
    });
  }
});

describe("target: --scope NAME", () => {
  it("lists the config's scope names, or says it has none", async () => {
    const named = await readConfig({
      default: { prompt: registry(), scopes: { a: 1, b: 2 } },
    }, SOURCE);
    assert.throws(
      () => target(named, "c"),
      /^CliError: config prompt\.config\.ts has no scope named "c"; its scopes are a, b$/,
    );
    const bare = await readConfig({ default: registry() }, SOURCE);
    assert.throws(
      () => target(bare, "a"),
      /it names no scopes \(add scopes: \{ name: key \}/,
    );
    assert.deepEqual(target(bare), { name: undefined, key: undefined });
  });
});

describe("loadFailure: why a config could not be imported", () => {
  it("says how to run a TypeScript config on Node and Bun", () => {
    const error = Object.assign(
      new TypeError('Unknown file extension ".ts" for /p/prompt.config.ts'),
      { code: "ERR_UNKNOWN_FILE_EXTENSION" },
    );
    const line = loadFailure(error);
    assert.match(line, /NODE_OPTIONS=--import=tsx/);
    assert.match(line, /--experimental-strip-types/);
    assert.match(line, /bun x --bun rxprompt/);
    assert.equal(line.includes("\n"), false);
  });

  it("names file:line:column of a syntax error Deno reports", () => {
    const error = new TypeError(
      "SyntaxError: Unexpected token `here`.\n  |\n3 |   oops here\n" +
        "    at file:///tmp/my%20dir/bad.config.ts:3:8",
    );
    assert.equal(
      loadFailure(error),
      "syntax error at /tmp/my dir/bad.config.ts:3:8: Unexpected token `here`.",
    );
  });

  it("says how to find the line when Node keeps it out of the error", () => {
    assert.equal(
      loadFailure(new SyntaxError("Unexpected identifier 'here'"), "a.mjs"),
      "syntax error: Unexpected identifier 'here' (node --check a.mjs shows " +
        "the line)",
    );
    assert.equal(
      loadFailure(
        new SyntaxError("Unexpected identifier 'here'"),
        "a.mjs",
        "/p/a.mjs:3",
      ),
      "syntax error at /p/a.mjs:3: Unexpected identifier 'here'",
      "the location node --check found",
    );
    assert.equal(loadFailure(new Error("boom")), "boom");
  });
});
