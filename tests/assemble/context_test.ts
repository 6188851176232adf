import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { firstValueFrom } from "rxjs";
import {
  type AssembleContext,
  type PromptView,
  renderPrompt,
  SystemPrompt,
} from "../../mod.ts";
import { rejects } from "../assertions.ts";
import { deferred, foreignSignal } from "../fixtures.ts";

function errorOf(view: PromptView): unknown {
  assert.ok("error" in view, "expected an { error } view");
  return view.error;
}

const badSignals: [string, unknown][] = [
  ["an empty object", {}],
  ["a number", 5],
  ["null", null],
  ["a string", "x"],
  ["an event target that is no signal", { addEventListener() {} }],
];

function badContexts(): [string, unknown, string][] {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return [
    ["a number", 42, "INVALID_CONTEXT"],
    ["a string", "agent", "INVALID_CONTEXT"],
    ["null", null, "INVALID_CONTEXT"],
    ["a null scope", { scope: null }, "INVALID_SCOPE_KEY"],
    ["a throwing signal getter", {
      get signal() {
        throw new Error("getter");
      },
    }, "INVALID_CONTEXT"],
    ["a throwing scope getter", {
      get scope() {
        throw new Error("getter");
      },
    }, "INVALID_CONTEXT"],
    ["a revoked Proxy", proxy, "INVALID_CONTEXT"],
  ];
}

describe("assemble(): the context", () => {
  for (const [label, signal] of badSignals) {
    it(`a signal that is ${label} rejects INVALID_CONTEXT`, async () => {
      const prompt = new SystemPrompt();
      await assert.rejects(
        prompt.assemble({ signal } as unknown as AssembleContext),
        rejects("INVALID_CONTEXT", "AbortSignal"),
      );
      await prompt.dispose();
    });
  }

  for (const [label, context, code] of badContexts()) {
    it(`a context that is ${label} rejects ${code}`, async () => {
      const prompt = new SystemPrompt();
      await assert.rejects(
        prompt.assemble(context as AssembleContext),
        rejects(code),
      );
      await prompt.dispose();
    });
  }

  it("passes the caller's context object itself to providers", async () => {
    const prompt = new SystemPrompt();
    const seen: unknown[] = [];
    prompt.variable("v", (context) => {
      seen.push(context);
      return "x";
    });
    const context = { signal: new AbortController().signal };
    await prompt.assemble(context);
    assert.equal(seen[0], context);
    await prompt.dispose();
  });
});

describe("assemble(): a signal from another realm or a polyfill", () => {
  it("is accepted when it has aborted, addEventListener and removeEventListener, and its abort is honoured", async () => {
    const prompt = new SystemPrompt({ persona: "P" });
    const open = foreignSignal();
    assert.equal(
      (await prompt.assemble({ signal: open.signal })).sections.length,
      2,
    );
    const aborted = foreignSignal();
    const reason = new Error("stop");
    aborted.abort(reason);
    await assert.rejects(
      prompt.assemble({ signal: aborted.signal }),
      (error) => error === reason,
    );
    await prompt.dispose();
  });
});

describe("watch(): the context", () => {
  for (const [label, signal] of badSignals) {
    it(`a signal that is ${label} is an INVALID_CONTEXT view`, async () => {
      const prompt = new SystemPrompt();
      const view = await firstValueFrom(
        prompt.watch({ signal } as unknown as AssembleContext),
      );
      rejects("INVALID_CONTEXT", "AbortSignal")(errorOf(view));
      await prompt.dispose();
    });
  }

  for (const [label, context, code] of badContexts()) {
    it(`a context that is ${label} is a ${code} view, as under assemble()`, async () => {
      const prompt = new SystemPrompt();
      const view = await firstValueFrom(
        prompt.watch(context as AssembleContext),
      );
      rejects(code)(errorOf(view));
      await prompt.dispose();
    });
  }

  it("providers receive an object whose prototype is the caller's context, with its own signal", async () => {
    const prompt = new SystemPrompt<AssembleContext & { model?: string }>();
    let reads = 0;
    const context = {
      get model(): string {
        reads++;
        return "example-model";
      },
    };
    const seen: (AssembleContext & { model?: string })[] = [];
    prompt.variable("model", (received) => {
      seen.push(received);
      return received.model;
    });
    prompt.section({ name: "m", order: 1, text: "on {{model}}" });
    const view = await firstValueFrom(prompt.watch(context));
    assert.ok("prompt" in view && view.prompt.endsWith("on example-model"));
    assert.equal(Object.getPrototypeOf(seen[0]), context);
    assert.ok(Object.hasOwn(seen[0], "signal"));
    assert.ok(seen[0].signal instanceof AbortSignal);
    assert.equal(reads, 1, "the getter ran once, on the caller's object");
    await prompt.dispose();
  });

  it("a getter-only signal on the caller's class does not break the stream", async () => {
    const prompt = new SystemPrompt();
    const controller = new AbortController();
    class Step {
      get signal(): AbortSignal {
        return controller.signal;
      }
    }
    const context = new Step();
    const view = await firstValueFrom(prompt.watch(context));
    assert.ok("prompt" in view, String((view as { error?: unknown }).error));
    assert.equal(view.prompt, renderPrompt(await prompt.assemble()));
    await prompt.dispose();
  });

  it("a class instance's private fields are not reachable through the derived context", async () => {
    class Step implements AssembleContext {
      scope?: string;
      #secret = "hidden";
      secret(): string {
        return this.#secret;
      }
    }
    const prompt = new SystemPrompt<Step>();
    prompt.variable("secret", (context) => context.secret());
    const step = new Step();
    assert.deepEqual((await prompt.assemble(step)).variables, {
      secret: "hidden",
    });
    const view = await firstValueFrom(prompt.watch(step));
    rejects("PROVIDER_FAILED", "secret")(errorOf(view));
    assert.ok((errorOf(view) as Error).cause instanceof TypeError);
    await prompt.dispose();
  });

  it("a caller's signal aborting during a watch() assembly aborts the providers' signal", async () => {
    const prompt = new SystemPrompt();
    const providerSignals: AbortSignal[] = [];
    const parked = deferred();
    prompt.variable("v", (context) => {
      if (context.signal !== undefined) providerSignals.push(context.signal);
      return "v";
    });
    prompt.onAssemble(async (_assembly, _context, next) => {
      parked.resolve();
      await new Promise(() => {});
      return next();
    });
    const controller = new AbortController();
    const reason = new Error("caller gave up");
    const view = firstValueFrom(prompt.watch({ signal: controller.signal }));
    await parked.promise;
    assert.equal(providerSignals.length, 1);
    assert.notEqual(providerSignals[0], controller.signal);
    assert.equal(providerSignals[0].aborted, false);
    controller.abort(reason);
    assert.equal(providerSignals[0].aborted, true);
    assert.equal(providerSignals[0].reason, reason);
    assert.equal(errorOf(await view), reason);
    await prompt.dispose();
  });
});
