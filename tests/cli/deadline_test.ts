/**
 * The command line's time bound in process: a wait that does not settle
 * becomes one CliError naming it and the limit, and the library work it
 * started is aborted through its signal.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type AssembleContext, SystemPrompt } from "../../mod.ts";
import { renderTarget } from "../../cli/assembly.ts";
import { CliError } from "../../cli/cli_error.ts";
import { readConfig } from "../../cli/config.ts";
import { within, withSignal } from "../../cli/deadline.ts";

describe("within", () => {
  it("settles as the work does", async () => {
    assert.equal(await within({ what: "x", timeoutMs: 1000 }, () => 42), 42);
    await assert.rejects(
      within({ what: "x", timeoutMs: 1000 }, () => {
        throw new Error("boom");
      }),
      /boom/,
    );
  });

  it("rejects at the limit with one line, and aborts the signal", async () => {
    let signal: AbortSignal | undefined;
    const error = await within(
      { what: "config a.ts: the assembly of the global view", timeoutMs: 20 },
      (given) => {
        signal = given;
        return new Promise<never>(() => {});
      },
    ).catch((error: unknown) => error);
    assert.ok(error instanceof CliError);
    assert.equal(
      error.message,
      "config a.ts: the assembly of the global view did not settle within " +
        "0.02 s; fix it or pass --timeout SECONDS",
    );
    assert.equal(signal?.aborted, true);
    assert.equal(signal?.reason, error);
  });
});

describe("withSignal", () => {
  it("keeps the context's prototype and fields, and its own signal", () => {
    class Context {
      scope = "a";
      hello(): string {
        return "hi";
      }
    }
    const own = new AbortController();
    const ours = new AbortController();
    const context = withSignal(
      Object.assign(new Context(), { signal: own.signal }),
      ours.signal,
    );
    assert.equal(context.hello(), "hi");
    assert.equal(context.scope, "a");
    own.abort("theirs");
    assert.equal(context.signal.aborted, true);
  });
});

describe("renderTarget", () => {
  it("aborts the assembly a listener holds when the limit passes", async () => {
    const prompt = new SystemPrompt({ persona: "You are terse." });
    let seen: AbortSignal | undefined;
    prompt.onAssemble((_assembly, context: AssembleContext) => {
      seen = context.signal;
      return new Promise<never>(() => {});
    });
    const config = await readConfig({ default: { prompt } }, "a.ts");
    await assert.rejects(
      renderTarget(config, { name: "x", key: undefined }, { timeoutMs: 30 }),
      (error: unknown) =>
        error instanceof CliError &&
        /^config a\.ts: the assembly of scope "x" did not settle within 0\.03 s \(a provider or a listener never answered; it was aborted\)/
          .test(error.message),
    );
    assert.equal(seen?.aborted, true);
    await prompt.dispose();
  });
});
