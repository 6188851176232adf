/**
 * The checks every adapter shares (adapters/_kit/assembly_input.ts): each tool read and
 * checked once, the options object, and the cache option's message.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { PromptAssembly } from "../../mod.ts";
import { toChatCompletions, toResponses } from "../../adapters/openai/mod.ts";
import { toMessages } from "../../adapters/anthropic/mod.ts";
import { toAISDK } from "../../adapters/ai_sdk/mod.ts";
import { rejects } from "../assertions.ts";

type Adapter = (assembly: unknown, options?: unknown) => unknown;

const ADAPTERS: [string, Adapter][] = [
  ["toChatCompletions", toChatCompletions as Adapter],
  ["toResponses", toResponses as Adapter],
  ["toMessages", toMessages as Adapter],
  ["toAISDK", toAISDK as Adapter],
];

function withTools(tools: unknown[]): PromptAssembly {
  return {
    sections: [{ name: "a", order: 0, text: "Hello." }],
    tools: tools as PromptAssembly["tools"],
    variables: {},
  };
}

const SCHEMA = { type: "object", properties: {} };

describe("the checks every adapter shares", () => {
  for (const [name, adapter] of ADAPTERS) {
    describe(name, () => {
      it("rejects a tool that is not an object with INVALID_TOOL_SCHEMA, naming its index", () => {
        for (const tool of [null, 3, "shell"]) {
          assert.throws(
            () => adapter(withTools([toolWithName("ok"), tool])),
            rejects("INVALID_TOOL_SCHEMA", "Tool 1 ", "must be an object"),
            String(tool),
          );
        }
      });

      it("rejects a description that is not a string with INVALID_TOOL_SCHEMA", () => {
        for (const description of [undefined, 3, null]) {
          const tool = { name: "shell", description, parameters: SCHEMA };
          assert.throws(
            () => adapter(withTools([tool])),
            rejects("INVALID_TOOL_SCHEMA", '"shell"', "description"),
            String(description),
          );
        }
      });

      it("rejects parameters that are not a JSON object with INVALID_TOOL_SCHEMA", () => {
        for (const parameters of [[], "object", null, 3]) {
          const tool = { name: "shell", description: "", parameters };
          assert.throws(
            () => adapter(withTools([tool])),
            rejects("INVALID_TOOL_SCHEMA", '"shell"', "JSON Schema object"),
            JSON.stringify(parameters),
          );
        }
      });

      it("rejects options that are not an object with INVALID_CONFIG, naming the adapter", () => {
        for (const options of ["x", 3, null, true]) {
          assert.throws(
            () => adapter(withTools([]), options),
            rejects("INVALID_CONFIG", `${name}'s options must be an object`),
            String(options),
          );
        }
      });
    });
  }

  describe("toAISDK (no wire rule): the registry's own rule for a tool name", () => {
    it("accepts a name of 128 characters, dots and colons included", () => {
      for (const name of ["a".repeat(128), "mcp.fs:read"]) {
        const { tools } = toAISDK(withTools([toolWithName(name)]));
        assert.deepEqual(Object.keys(tools), [name]);
      }
    });

    it("rejects an empty, too long, spaced or non-string name with INVALID_TOOL_SCHEMA", () => {
      for (
        const name of ["", "a".repeat(129), "a b", "a\u0007", 3, undefined]
      ) {
        assert.throws(
          () => toAISDK(withTools([toolWithName("ok"), toolWithName(name)])),
          rejects("INVALID_TOOL_SCHEMA", "Tool 1 ", "at most 128"),
          JSON.stringify(name),
        );
      }
    });
  });

  describe("the cache option's error", () => {
    for (const [name, adapter] of ADAPTERS) {
      it(`${name}: names the ttl of an object, and no ttl otherwise`, () => {
        assert.throws(
          () => adapter(withTools([]), { cache: { ttl: "2h" } }),
          rejects("INVALID_CONFIG", 'cache is an object with ttl "2h";'),
        );
        for (const cache of ["yes", 1, null]) {
          assert.throws(
            () => adapter(withTools([]), { cache }),
            (error) => {
              rejects(
                "INVALID_CONFIG",
                `cache is ${JSON.stringify(cache)}; it must be true, false`,
              )(error);
              assert.equal((error as Error).cause, undefined);
              return true;
            },
          );
        }
      });
    }
  });
});

function toolWithName(name: unknown): Record<string, unknown> {
  return { name, description: "", parameters: SCHEMA };
}
