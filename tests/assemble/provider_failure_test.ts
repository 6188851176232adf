import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { renderPrompt, SystemPrompt, type ToolProvider } from "../../mod.ts";
import { macrotask, rejects } from "../assertions.ts";
import { tool } from "../fixtures.ts";

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

const oddThrownValues: [string, () => unknown][] = [
  ["an object without a prototype", () => Object.create(null)],
  ["an object whose toString throws", () => ({
    toString() {
      throw new Error("toString");
    },
  })],
  ["an Error whose message getter throws", () => {
    const error = new Error("x");
    Object.defineProperty(error, "message", {
      get() {
        throw new Error("message");
      },
    });
    return error;
  }],
  ["a revoked Proxy", revokedProxy],
  ["a symbol", () => Symbol("thrown")],
];

describe("describing what a provider throws", () => {
  for (const [label, make] of oddThrownValues) {
    it(`a variable provider throwing ${label} rejects PROVIDER_FAILED with it as cause`, async () => {
      const prompt = new SystemPrompt();
      const thrown = make();
      prompt.variable("cwd", () => {
        throw thrown;
      });
      await assert.rejects(prompt.assemble(), (error) => {
        rejects("PROVIDER_FAILED", 'variable "cwd"')(error);
        assert.equal((error as Error).cause, thrown);
        return true;
      });
      await prompt.dispose();
    });
  }
});

describe("the message of PROVIDER_FAILED", () => {
  it("describes an Error as its name and message, anything else as its string", async () => {
    class QuotaError extends Error {
      override name = "QuotaError";
      override toString(): string {
        return "not how an Error is described";
      }
    }
    const cases: [unknown, string][] = [
      [new QuotaError("over quota"), "QuotaError: over quota"],
      [new Error(""), "Error: ."],
      ["disk full", ": disk full"],
      [{ toString: () => "custom object" }, ": custom object"],
      [Object.create(null), "an object that cannot be converted to a string"],
    ];
    for (const [thrown, part] of cases) {
      const prompt = new SystemPrompt();
      prompt.variable("cwd", () => {
        throw thrown;
      });
      await assert.rejects(
        prompt.assemble(),
        rejects("PROVIDER_FAILED", 'variable "cwd"', part),
      );
      await prompt.dispose();
    }
  });
});

function hostileResults(): [string, () => unknown][] {
  const iteratorThrows = [tool("a")];
  Object.defineProperty(iteratorThrows, Symbol.iterator, {
    value() {
      throw new Error("iterator");
    },
  });
  return [
    ["a throwing schemas getter", () => ({
      get schemas() {
        throw new Error("schemas getter");
      },
    })],
    ["schemas whose iterator throws", () => ({ schemas: iteratorThrows })],
    ["a Proxy schema whose get throws", () => ({
      schemas: [
        new Proxy(tool("a"), {
          get() {
            throw new Error("schema get");
          },
        }),
      ],
    })],
    ["a throwing knownNames getter", () => ({
      schemas: [],
      get knownNames() {
        throw new Error("knownNames getter");
      },
    })],
    ["a revoked Proxy", revokedProxy],
  ];
}

describe("reading a tool provider's result", () => {
  for (const [label, make] of hostileResults()) {
    it(`${label} rejects PROVIDER_FAILED naming the provider, with the cause`, async () => {
      const prompt = new SystemPrompt();
      const result = make();
      prompt.fork({ label: "mcp" }).tools(
        function remoteTools() {
          return result;
        } as unknown as ToolProvider,
      );
      await assert.rejects(prompt.assemble(), (error) => {
        rejects("PROVIDER_FAILED", "remoteTools (#1)", '"registry/mcp"')(
          error,
        );
        assert.ok((error as Error).cause !== undefined);
        return true;
      });
      await prompt.dispose();
    });
  }
});

describe("providers that return a Promise", () => {
  const cases: [
    string,
    (prompt: SystemPrompt, value: Promise<never>) => void,
  ][] = [
    [
      "a variable provider",
      (prompt, value) =>
        prompt.variable("cwd", (() => value) as unknown as () => string),
    ],
    ["a section text function", (prompt, value) =>
      prompt.section({
        name: "s",
        order: 1,
        text: (() => value) as unknown as () => string,
      })],
    [
      "a tool provider",
      (prompt, value) => prompt.tools((() => value) as unknown as ToolProvider),
    ],
  ];
  for (const [label, register] of cases) {
    it(`${label} returning a Promise rejects PROVIDER_FAILED saying providers are synchronous, and its rejection is handled`, async () => {
      const unhandled: unknown[] = [];
      function onUnhandled(reason: unknown): void {
        unhandled.push(reason);
      }
      process.on("unhandledRejection", onUnhandled);
      try {
        const prompt = new SystemPrompt();
        const before = renderPrompt(await prompt.assemble());
        const dropped = Promise.reject(new Error("async provider failed"));
        register(prompt, dropped);
        await assert.rejects(
          prompt.assemble(),
          rejects(
            "PROVIDER_FAILED",
            "returned a Promise; providers are synchronous (use an " +
              "Observable source or resolve before assembly)",
          ),
        );
        await macrotask();
        await macrotask();
        assert.deepEqual(unhandled, []);
        await prompt.dispose();
        assert.equal(before.length > 0, true);
      } finally {
        process.off("unhandledRejection", onUnhandled);
      }
    });
  }
});

describe("describing what a provider returned", () => {
  it("a variable provider returning null is described as null", async () => {
    const prompt = new SystemPrompt();
    prompt.variable("cwd", (() => null) as unknown as () => string);
    await assert.rejects(
      prompt.assemble(),
      rejects("PROVIDER_FAILED", 'variable "cwd" returned null'),
    );
    await prompt.dispose();
  });

  it("a section text function returning null is described as null", async () => {
    const prompt = new SystemPrompt();
    prompt.section({
      name: "s",
      order: 1,
      text: (() => null) as unknown as () => string,
    });
    await assert.rejects(
      prompt.assemble(),
      rejects("PROVIDER_FAILED", 'section "s" returned null'),
    );
    await prompt.dispose();
  });
});

describe("the config is read once", () => {
  it("a persona getter is read once: a string then a number still gives the string", async () => {
    let reads = 0;
    const config = {
      get persona(): string {
        reads++;
        return reads === 1 ? "You are {{who}}." : 42 as unknown as string;
      },
    };
    const prompt = new SystemPrompt(config);
    prompt.variable("who", () => "careful");
    assert.equal(reads, 1);
    assert.ok(
      renderPrompt(await prompt.assemble()).endsWith("You are careful."),
    );
    await prompt.dispose();
  });

  it("a non-boolean includeHarnessIdentity is INVALID_CONFIG", () => {
    assert.throws(
      () =>
        new SystemPrompt({
          includeHarnessIdentity: "no" as unknown as boolean,
        }),
      rejects("INVALID_CONFIG", "includeHarnessIdentity", '"no"'),
    );
  });

  it("a non-function onSubscriberError is INVALID_CONFIG", () => {
    assert.throws(
      () =>
        new SystemPrompt({
          onSubscriberError: "log" as unknown as () => void,
        }),
      rejects("INVALID_CONFIG", "onSubscriberError"),
    );
  });
});
