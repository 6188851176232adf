/**
 * Hostile user code at assembly time: gates, tool providers and listeners
 * whose `name`, answers or results throw when read. Each failure is a typed
 * rejection naming what failed, with what was thrown as `cause`; nothing
 * raw escapes `assemble()` or `explain()`.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type AssembleListener,
  type PromptAssembly,
  SystemPrompt,
  type SystemPromptError,
} from "../../mod.ts";
import { rejects } from "../assertions.ts";
import { tool } from "../fixtures.ts";

/** `fn` behind a Proxy whose `name` getter throws `NAME_ERROR`. */
function hostileName<F extends (...args: never[]) => unknown>(fn: F): F {
  return new Proxy(fn, {
    get(target, key, receiver) {
      if (key === "name") throw NAME_ERROR;
      return Reflect.get(target, key, receiver);
    },
  });
}

const NAME_ERROR = new Error("hostile name getter");

function registry(): SystemPrompt {
  const prompt = new SystemPrompt({ includeHarnessIdentity: false });
  prompt.tools(() => ({ schemas: [tool("read"), tool("write")] }));
  return prompt;
}

describe("a hostile function name getter", () => {
  it("a gate's bad answer rejects INVALID_PROVIDER naming it by position", async () => {
    const prompt = registry();
    prompt.toolGate(hostileName(() => 5 as never));
    await assert.rejects(
      prompt.assemble(),
      rejects("INVALID_PROVIDER", "tool gate #1 of registrar"),
    );
    await prompt.dispose();
  });

  it("a gate's unknown name rejects UNKNOWN_TOOL_IN_GATE, in assemble() and explain()", async () => {
    const prompt = registry();
    prompt.toolGate(hostileName(() => ["nope"]));
    for (const run of [() => prompt.assemble(), () => prompt.explain()]) {
      await assert.rejects(
        run(),
        rejects("UNKNOWN_TOOL_IN_GATE", "tool gate #1", '"nope"'),
      );
    }
    await prompt.dispose();
  });

  it("explain() names the gate that left a tool inactive by its position", async () => {
    const prompt = registry();
    prompt.toolGate(hostileName(() => ["read"]));
    const explanation = await prompt.explain();
    const write = explanation.tools.find((origin) => origin.name === "write");
    assert.match(String(write?.inactiveBy), /^tool gate #1 of registrar/);
    await prompt.dispose();
  });

  it("a tool provider that throws rejects PROVIDER_FAILED with its error as cause", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    const boom = new Error("boom");
    prompt.tools(hostileName(() => {
      throw boom;
    }));
    await assert.rejects(prompt.assemble(), (error) => {
      rejects("PROVIDER_FAILED", "tool provider #1 of registrar")(error);
      assert.equal((error as SystemPromptError).cause, boom);
      return true;
    });
    await prompt.dispose();
  });

  it("a tool provider's bad result or duplicate tool rejects typed, naming it by position", async () => {
    const cases: [() => unknown, string][] = [
      [() => 5, "INVALID_TOOL_SCHEMA"],
      [() => ({ schemas: [tool("a"), tool("a")] }), "DUPLICATE_TOOL"],
    ];
    for (const [provider, code] of cases) {
      const prompt = new SystemPrompt({ includeHarnessIdentity: false });
      prompt.tools(hostileName(provider) as never);
      await assert.rejects(
        prompt.assemble(),
        rejects(code, "tool provider #1 of registrar"),
      );
      await prompt.dispose();
    }
  });
});

const HOSTILE = new Error("hostile read");

function fail(): never {
  throw HOSTILE;
}

/** Answers that cannot be read, each with the error reading it throws. */
const UNREADABLE_ANSWERS: [string, () => unknown, unknown][] = [
  [
    "a Proxy array whose get trap throws",
    () => new Proxy(["read"], { get: fail }),
    HOSTILE,
  ],
  [
    "an object whose Symbol.iterator getter throws",
    () => Object.defineProperty([], Symbol.iterator, { get: fail }),
    HOSTILE,
  ],
  ["a revoked Proxy", () => {
    const { proxy, revoke } = Proxy.revocable(["read"], {});
    revoke();
    return proxy;
  }, TypeError],
  ["a Proxy throwing on every trap", () =>
    new Proxy(["read"], {
      get: fail,
      has: fail,
      ownKeys: fail,
      getOwnPropertyDescriptor: fail,
      getPrototypeOf: fail,
    }), HOSTILE],
];

function assertCause(error: unknown, expected: unknown): void {
  const { cause } = error as SystemPromptError;
  if (typeof expected === "function") {
    assert.ok(cause instanceof (expected as typeof TypeError), String(cause));
  } else assert.equal(cause, expected);
}

describe("hostile gate answers and listener activeTools keep the cause", () => {
  for (const [label, make, cause] of UNREADABLE_ANSWERS) {
    it(`a gate answering ${label}: INVALID_PROVIDER with what was thrown as cause`, async () => {
      const prompt = registry();
      prompt.toolGate(() => make() as Iterable<string>);
      await assert.rejects(prompt.assemble(), (error) => {
        rejects("INVALID_PROVIDER", "tool gate #1", "cannot be read")(error);
        assertCause(error, cause);
        return true;
      });
      await prompt.dispose();
    });

    it(`a listener setting activeTools to ${label}: INVALID_LISTENER_RESULT naming it, with the cause`, async () => {
      const prompt = registry();
      prompt.onAssemble((_assembly, _context, next) => next());
      prompt.onAssemble(async (_assembly, _context, next) => {
        const result = await next();
        result.activeTools = make() as string[];
        return result;
      });
      await assert.rejects(prompt.assemble(), (error) => {
        rejects(
          "INVALID_LISTENER_RESULT",
          "The assembly listener #2 set activeTools",
          "cannot be read",
        )(error);
        assertCause(error, cause);
        return true;
      });
      await prompt.dispose();
    });
  }

  it("a listener result whose activeTools getter throws: INVALID_LISTENER_RESULT naming activeTools and the getter's error", async () => {
    const prompt = registry();
    const listener: AssembleListener<object> = async (_a, _c, next) => {
      const result: PromptAssembly = await next();
      return Object.defineProperty({ ...result }, "activeTools", { get: fail });
    };
    prompt.onAssemble(listener);
    await assert.rejects(prompt.assemble(), (error) => {
      rejects("INVALID_LISTENER_RESULT", "activeTools", "hostile read")(error);
      assert.doesNotMatch((error as Error).message, /null/);
      assert.equal((error as SystemPromptError).cause, HOSTILE);
      return true;
    });
    await prompt.dispose();
  });
});

/** `result` with an extra enumerable field whose getter throws. */
function withThrowingExtra(result: PromptAssembly): PromptAssembly {
  return Object.defineProperty({ ...result }, "extra", {
    get: fail,
    enumerable: true,
  });
}

/** `result` whose `sections` getter answers `reads` times, then throws. */
function sectionsAnswering(reads: number) {
  return (result: PromptAssembly): PromptAssembly => {
    const { sections, ...rest } = result;
    let count = 0;
    return Object.defineProperty(rest, "sections", {
      get: () => count++ < reads ? sections : fail(),
      enumerable: true,
    }) as PromptAssembly;
  };
}

describe("a listener result with throwing getters under a budget or gates", () => {
  const modes: [string, (prompt: SystemPrompt) => Promise<PromptAssembly>][] = [
    ["a budget that prunes", (prompt) =>
      prompt.assemble({}, {
        budget: {
          maxTokens: 100,
          countTokens: (text) => Math.ceil(text.length / 4),
        },
      })],
    ["activeTools normalised", (prompt) => prompt.assemble()],
  ];
  const results: [string, (result: PromptAssembly) => PromptAssembly][] = [
    ["an extra enumerable getter that throws", withThrowingExtra],
    ["a sections getter that answers once, then throws", sectionsAnswering(1)],
    ["a sections getter that answers twice, then throws", sectionsAnswering(2)],
  ];
  for (const [mode, assemble] of modes) {
    for (const [label, wrap] of results) {
      it(`${label}, with ${mode}: typed, or each field read once`, async () => {
        const prompt = new SystemPrompt({ includeHarnessIdentity: false });
        prompt.section({
          name: "a",
          order: 1,
          text: "word ".repeat(80),
          stability: "volatile",
        });
        prompt.section({ name: "b", order: 2, text: "text ".repeat(40) });
        prompt.tools(() => ({
          schemas: [tool("read"), tool("write")],
          knownNames: ["deploy"],
        }));
        prompt.onAssemble(async (_assembly, _context, next) => {
          const result = await next();
          // Listed out of order and with a known absent tool: normalised.
          result.activeTools = ["write", "deploy", "read"];
          return wrap(result);
        });
        let assembly: PromptAssembly | undefined;
        try {
          assembly = await assemble(prompt);
        } catch (error) {
          rejects("INVALID_LISTENER_RESULT", "hostile read")(error);
          assert.equal((error as SystemPromptError).cause, HOSTILE);
        }
        if (label.startsWith("an extra")) assert.equal(assembly, undefined);
        if (assembly !== undefined) {
          assert.deepEqual(assembly.activeTools, ["read", "write"]);
          if (mode.includes("budget")) {
            assert.deepEqual(assembly.pruned?.map(({ name }) => name), ["a"]);
          }
        }
        await prompt.dispose();
      });
    }
  }
});
