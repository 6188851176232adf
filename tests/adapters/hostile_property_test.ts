import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { toChatCompletions, toResponses } from "../../adapters/openai.ts";
import { toMessages } from "../../adapters/anthropic.ts";
import {
  assertRuntimeContext,
  assertSchemaObject,
  assertToolNames,
  HOSTILE_SEED,
  hostileAssemblyArb,
  hostileOptionsArb,
  outputOrCode,
} from "./hostile.ts";

const RUNS = 2000;

describe(`adapters on hostile assemblies (fast-check seed ${HOSTILE_SEED})`, () => {
  it("toChatCompletions returns a well-formed request or throws a coded SystemPromptError", () => {
    fc.assert(
      fc.property(
        hostileAssemblyArb,
        hostileOptionsArb,
        (assembly, options) => {
          const request = outputOrCode(() =>
            toChatCompletions(assembly, options)
          );
          if (request === undefined) return;
          assert.equal(request.system.role, "system");
          assert.equal(typeof request.system.content, "string");
          assertRuntimeContext(request.runtimeContext);
          if (request.tools !== undefined) {
            assert.ok(request.tools.length > 0);
            assertToolNames(request.tools.map((tool) => tool.function.name));
            for (const tool of request.tools) {
              assert.equal(tool.type, "function");
              assert.equal(typeof tool.function.description, "string");
              assertSchemaObject(tool.function.parameters);
            }
          }
        },
      ),
      { seed: HOSTILE_SEED, numRuns: RUNS },
    );
  });

  it("toResponses returns a well-formed request or throws a coded SystemPromptError", () => {
    fc.assert(
      fc.property(
        hostileAssemblyArb,
        hostileOptionsArb,
        (assembly, options) => {
          const request = outputOrCode(() => toResponses(assembly, options));
          if (request === undefined) return;
          assert.equal(typeof request.instructions, "string");
          assertRuntimeContext(request.runtimeContext);
          if (request.tools !== undefined) {
            assert.ok(request.tools.length > 0);
            assertToolNames(request.tools.map((tool) => tool.name));
            for (const tool of request.tools) {
              assert.equal(typeof tool.strict, "boolean");
              assertSchemaObject(tool.parameters);
            }
          }
        },
      ),
      { seed: HOSTILE_SEED, numRuns: RUNS },
    );
  });

  it("toMessages returns a well-formed request or throws a coded SystemPromptError", () => {
    fc.assert(
      fc.property(
        hostileAssemblyArb,
        hostileOptionsArb,
        (assembly, options) => {
          const request = outputOrCode(() => toMessages(assembly, options));
          if (request === undefined) return;
          let markers = 0;
          for (const block of request.system) {
            assert.equal(block.type, "text");
            assert.notEqual(block.text, "");
            if (block.cache_control) markers++;
          }
          assertRuntimeContext(request.runtimeContext);
          if (request.tools !== undefined) {
            assert.ok(request.tools.length > 0);
            assertToolNames(request.tools.map((tool) => tool.name));
            for (const tool of request.tools) {
              assert.equal(tool.input_schema.type, "object");
              if (tool.cache_control) markers++;
            }
          }
          const limit = typeof options?.maxCacheBreakpoints === "number"
            ? options.maxCacheBreakpoints
            : 3;
          assert.ok(markers <= limit, `${markers} markers, limit ${limit}`);
        },
      ),
      { seed: HOSTILE_SEED, numRuns: RUNS },
    );
  });
});
