/**
 * Issue 21, defects 5 and 6: what a getter or a Proxy of the assembly or the
 * options throws comes out of every adapter and of `renderPromptBlocks` as a
 * coded `SystemPromptError` with the thrown value as `cause`; a non-assembly
 * is `INVALID_ASSEMBLY` everywhere; a tool's name is read once.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type PromptAssembly,
  renderPrompt,
  renderPromptBlocks,
  type SystemPromptError,
} from "../../mod.ts";
import { toChatCompletions, toResponses } from "../../adapters/openai/mod.ts";
import { toMessages } from "../../adapters/anthropic/mod.ts";
import { toAISDK } from "../../adapters/ai_sdk/mod.ts";
import { toConverse } from "../../adapters/bedrock/mod.ts";
import { toGemini } from "../../adapters/gemini/mod.ts";
import { rejects } from "../assertions.ts";

type Entry = (assembly: unknown, options?: unknown) => unknown;

const ENTRY_POINTS: Record<string, Entry> = {
  renderPromptBlocks: (assembly) =>
    renderPromptBlocks(assembly as PromptAssembly),
  toChatCompletions: toChatCompletions as Entry,
  toResponses: toResponses as Entry,
  toMessages: toMessages as Entry,
  toAISDK: toAISDK as Entry,
  toConverse: toConverse as Entry,
  toGemini: toGemini as Entry,
};

/** The entry points that cut the prompt into blocks (without options). */
const BLOCKS = ["renderPromptBlocks", "toMessages"];

const ADAPTERS = Object.entries(ENTRY_POINTS).filter(([name]) =>
  name !== "renderPromptBlocks"
);

const boom = new Error("boom");

function throwing(): never {
  throw boom;
}

function revoked(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

function sane(): PromptAssembly & { runtimeContext: unknown[] } {
  return {
    sections: [{ name: "a", order: 0, text: "Hello {{v}}." }],
    tools: [{ name: "shell", description: "Run.", parameters: {} }],
    variables: { v: "you" },
    runtimeContext: [{ name: "date", order: 0, text: "Monday." }],
  };
}

/** `sane()` with `key` (a dotted path) made a throwing getter. */
function withGetter(path: string): unknown {
  const assembly = sane() as unknown as Record<string, unknown>;
  const keys = path.split(".");
  let target = assembly;
  for (const key of keys.slice(0, -1)) {
    target = target[key] as Record<string, unknown>;
  }
  Object.defineProperty(target, keys.at(-1)!, {
    get: throwing,
    enumerable: true,
  });
  return assembly;
}

/** A thrown SystemPromptError with `code` whose cause is `cause`. */
function coded(code: string, cause?: unknown): (error: unknown) => true {
  return (error) => {
    rejects(code)(error);
    if (cause !== undefined) {
      assert.equal((error as SystemPromptError).cause, cause);
    }
    return true;
  };
}

describe("the 0.2 entry points on unreadable input", () => {
  for (const [name, entry] of Object.entries(ENTRY_POINTS)) {
    describe(name, () => {
      for (
        const path of [
          "sections",
          "variables",
          "sections.0",
          "sections.0.text",
          "variables.v",
          // Only the blocks read a section's name and breakpoint.
          ...(BLOCKS.includes(name)
            ? ["sections.0.name", "sections.0.cacheBreakpoint"]
            : []),
          ...(name === "renderPromptBlocks"
            ? []
            : ["tools", "tools.0", "tools.0.name", "runtimeContext"]),
        ]
      ) {
        it(`gives INVALID_ASSEMBLY with the cause for a throwing getter at ${path}`, () => {
          assert.throws(
            () => entry(withGetter(path)),
            (error) => {
              coded("INVALID_ASSEMBLY", boom)(error);
              assert.match((error as Error).message, new RegExp(name));
              return true;
            },
          );
        });
      }

      it("gives INVALID_ASSEMBLY with the cause for a revoked Proxy assembly", () => {
        assert.throws(() => entry(revoked()), (error) => {
          rejects("INVALID_ASSEMBLY", name)(error);
          assert.ok((error as Error).cause instanceof TypeError);
          return true;
        });
      });

      it("gives INVALID_ASSEMBLY with the cause for revoked Proxy sections and variables", () => {
        for (const key of ["sections", "variables"]) {
          const assembly = { ...sane(), [key]: revoked() };
          assert.throws(() => entry(assembly), (error) => {
            rejects("INVALID_ASSEMBLY")(error);
            assert.ok((error as Error).cause instanceof TypeError, key);
            return true;
          });
        }
      });

      for (const value of [null, undefined, 3, "text", true]) {
        it(`answers the non-assembly ${String(value)} with INVALID_ASSEMBLY, like renderPrompt`, () => {
          assert.throws(
            () => renderPrompt(value as unknown as PromptAssembly),
            rejects("INVALID_ASSEMBLY"),
          );
          assert.throws(() => entry(value), rejects("INVALID_ASSEMBLY", name));
        });
      }

      for (
        const [key, value] of [
          ["sections", "a"],
          ["sections", undefined],
          ["variables", null],
          ["variables", "v"],
          ["variables", []],
          ["sections", [null]],
          ["sections", [3]],
        ] as const
      ) {
        it(`answers ${key} ${JSON.stringify(value)} with INVALID_ASSEMBLY, like renderPrompt`, () => {
          const assembly = { ...sane(), [key]: value };
          assert.throws(
            () => renderPrompt(assembly as unknown as PromptAssembly),
            rejects("INVALID_ASSEMBLY"),
          );
          assert.throws(() => entry(assembly), rejects("INVALID_ASSEMBLY"));
        });
      }
    });
  }

  for (const [name, adapter] of ADAPTERS) {
    describe(name, () => {
      it("answers a tools or runtimeContext that is not an array with INVALID_ASSEMBLY", () => {
        for (const key of ["tools", "runtimeContext"]) {
          for (const value of [null, "x", {}]) {
            const assembly = { ...sane(), [key]: value };
            assert.throws(
              () => adapter(assembly),
              rejects("INVALID_ASSEMBLY", key),
            );
          }
        }
        const entry = { ...sane(), runtimeContext: [null] };
        assert.throws(
          () => adapter(entry),
          rejects("INVALID_ASSEMBLY", "runtimeContext[0]"),
        );
      });

      it("gives INVALID_CONFIG with the cause for unreadable options", () => {
        const getters = Object.defineProperties({}, {
          strict: { get: throwing, enumerable: true },
          cache: { get: throwing, enumerable: true },
          execute: { get: throwing, enumerable: true },
          maxCacheBreakpoints: { get: throwing, enumerable: true },
          toolChoiceMode: { get: throwing, enumerable: true },
        });
        assert.throws(
          () => adapter(sane(), getters),
          coded("INVALID_CONFIG", boom),
        );
        assert.throws(() => adapter(sane(), revoked()), (error) => {
          rejects("INVALID_CONFIG", name)(error);
          assert.ok((error as Error).cause instanceof TypeError);
          return true;
        });
      });

      it("reads a tool's name once: a getter cannot pass the check with one name and send another", () => {
        let reads = 0;
        const assembly = sane();
        Object.defineProperty(assembly.tools[0], "name", {
          get: () => reads++ === 0 ? "ok" : "bad name with spaces",
          enumerable: true,
        });
        const names = JSON.stringify(adapter(assembly));
        assert.ok(!names.includes("bad name"), names);
        assert.ok(names.includes('"ok"'), names);
      });

      it("reads the assembly's keys once", () => {
        const reads: Record<string, number> = {};
        const assembly = sane() as unknown as Record<string, unknown>;
        const proxy = new Proxy(assembly, {
          get(target, key, receiver) {
            reads[String(key)] = (reads[String(key)] ?? 0) + 1;
            return Reflect.get(target, key, receiver);
          },
        });
        adapter(proxy);
        for (
          const key of ["sections", "tools", "variables", "runtimeContext"]
        ) {
          assert.equal(reads[key], 1, `${key} read ${reads[key]} times`);
        }
      });
    });
  }

  describe("the cache option", () => {
    // toMessages, toAISDK and toConverse take a cache option.
    for (const [name, adapter] of [ADAPTERS[2], ADAPTERS[3], ADAPTERS[4]]) {
      it(`${name}: a throwing cache.ttl getter gives INVALID_CONFIG with the cause`, () => {
        const cache = Object.defineProperty({}, "ttl", {
          get: throwing,
          enumerable: true,
        });
        assert.throws(
          () => adapter(sane(), { cache }),
          coded("INVALID_CONFIG", boom),
        );
        assert.throws(
          () => adapter(sane(), { cache: revoked() }),
          rejects("INVALID_CONFIG", "cache"),
        );
      });
    }
  });

  describe("toAISDK's execute", () => {
    it("gives INVALID_CONFIG with the cause for a throwing execute entry or a revoked Proxy", () => {
      const execute = Object.defineProperty({}, "shell", {
        get: throwing,
        enumerable: true,
      });
      assert.throws(
        () => toAISDK(sane(), { execute } as never),
        coded("INVALID_CONFIG", boom),
      );
      assert.throws(
        () => toAISDK(sane(), { execute: revoked() } as never),
        rejects("INVALID_CONFIG", "execute"),
      );
    });

    it("reads each execute entry once: a getter cannot pass the check and send a non-function", () => {
      let reads = 0;
      const run = () => "ran";
      const execute = Object.defineProperty({}, "shell", {
        get: () => reads++ === 0 ? run : "not a function",
        enumerable: true,
      });
      const { tools } = toAISDK(sane(), { execute } as never);
      assert.equal(
        (tools.shell as unknown as { execute: unknown }).execute,
        run,
      );
    });
  });
});
