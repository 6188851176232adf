import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type OpenAIOptions,
  toChatCompletions,
  toResponses,
} from "../../adapters/openai/mod.ts";
import { toMessages } from "../../adapters/anthropic/mod.ts";
import { toConverse } from "../../adapters/bedrock/mod.ts";
import { toGemini } from "../../adapters/gemini/mod.ts";
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

/** At most `maxCacheBreakpoints` (default 2) marked parts. */
function assertMarks(
  parts: readonly { prompt_cache_breakpoint?: unknown }[],
  options: Record<string, unknown> | undefined,
): void {
  const limit = typeof options?.maxCacheBreakpoints === "number"
    ? options.maxCacheBreakpoints
    : 2;
  const marks = parts.filter((part) => part.prompt_cache_breakpoint).length;
  assert.ok(marks <= limit, `${marks} marks, limit ${limit}`);
}

/** A chat tool choice names only tools the request lists. */
function assertChatToolChoice(
  request: ReturnType<typeof toChatCompletions>,
): void {
  const choice = request.tool_choice;
  if (choice === undefined || choice === "none") return;
  assert.equal(choice.type, "allowed_tools");
  assert.ok(choice.allowed_tools.tools.length > 0);
  const names = (request.tools ?? []).map((tool) => tool.function.name);
  for (const entry of choice.allowed_tools.tools) {
    assert.ok(names.includes(entry.function.name), entry.function.name);
  }
}

describe(`adapters on hostile assemblies (fast-check seed ${HOSTILE_SEED})`, () => {
  it("toChatCompletions returns a well-formed request or throws a coded SystemPromptError", () => {
    fc.assert(
      fc.property(
        hostileAssemblyArb,
        hostileOptionsArb,
        (assembly, options) => {
          const request = outputOrCode(() =>
            toChatCompletions(assembly, options as OpenAIOptions)
          );
          if (request === undefined) return;
          assert.equal(request.system.role, "system");
          const content = request.system.content;
          if (typeof content !== "string") {
            assert.ok(content.length > 0);
            for (const part of content) assert.equal(part.type, "text");
            assertMarks(content, options);
            assert.ok("prompt_cache_key" in request);
          } else assertPlainKey(request, options);
          assertRuntimeContext(request.runtimeContext);
          assertChatToolChoice(request);
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
          const request = outputOrCode(() =>
            toResponses(assembly, options as OpenAIOptions)
          );
          if (request === undefined) return;
          if ("instructions" in request) {
            assert.equal(typeof request.instructions, "string");
            assertPlainKey(request, options);
          } else {
            assert.equal(request.system.role, "system");
            for (const part of request.system.content) {
              assert.equal(part.type, "input_text");
            }
            assertMarks(request.system.content, options);
            assert.equal(typeof request.prompt_cache_key, "string");
          }
          assertRuntimeContext(request.runtimeContext);
          const choice = request.tool_choice;
          if (choice !== undefined && choice !== "none") {
            assert.equal(choice.type, "allowed_tools");
            assert.ok(choice.tools.length > 0);
            const names = (request.tools ?? []).map((tool) => tool.name);
            for (const entry of choice.tools) {
              assert.ok(names.includes(entry.name), entry.name);
            }
          }
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
          const names = (request.tools ?? []).map((tool) => tool.name);
          for (const name of request.allowedTools ?? []) {
            assert.ok(names.includes(name), name);
          }
        },
      ),
      { seed: HOSTILE_SEED, numRuns: RUNS },
    );
  });

  it("toConverse returns a well-formed request or throws a coded SystemPromptError", () => {
    fc.assert(
      fc.property(
        hostileAssemblyArb,
        hostileOptionsArb,
        (assembly, options) => {
          const request = outputOrCode(() => toConverse(assembly, options));
          if (request === undefined) return;
          const entries = [
            ...request.toolConfig?.tools ?? [],
            ...request.system,
          ];
          let points = 0;
          entries.forEach((entry, index) => {
            if (!("cachePoint" in entry)) return;
            points++;
            // A point ends the entry before it, never another point.
            assert.ok(index > 0 && !("cachePoint" in entries[index - 1]));
          });
          for (const block of request.system) {
            if ("text" in block) assert.notEqual(block.text, "");
          }
          const specs = (request.toolConfig?.tools ?? []).flatMap((entry) =>
            "toolSpec" in entry ? [entry.toolSpec] : []
          );
          if (request.toolConfig !== undefined) assert.ok(specs.length > 0);
          assertToolNames(specs.map((spec) => spec.name));
          for (const spec of specs) {
            assert.equal(spec.inputSchema.json.type, "object");
            assert.notEqual(spec.description, "");
          }
          const limit = typeof options?.maxCacheBreakpoints === "number"
            ? options.maxCacheBreakpoints
            : 3;
          assert.ok(points <= limit, `${points} points, limit ${limit}`);
          const context = request.runtimeContext;
          if (context !== undefined) {
            assert.notEqual(context.content[0].text, "");
          }
        },
      ),
      { seed: HOSTILE_SEED, numRuns: RUNS },
    );
  });

  it("toGemini returns a well-formed request or throws a coded SystemPromptError", () => {
    fc.assert(
      fc.property(hostileAssemblyArb, (assembly) => {
        const request = outputOrCode(() => toGemini(assembly));
        if (request === undefined) return;
        if (request.systemInstruction !== undefined) {
          assert.notEqual(request.systemInstruction.parts[0].text, "");
        }
        const declarations = request.tools?.[0].functionDeclarations ?? [];
        if (request.tools !== undefined) assert.ok(declarations.length > 0);
        for (const declaration of declarations) {
          assert.equal(declaration.parametersJsonSchema.type, "object");
        }
        const names = declarations.map((declaration) => declaration.name);
        for (
          const name of request.toolConfig?.functionCallingConfig
            .allowedFunctionNames ?? []
        ) assert.ok(names.includes(name), name);
      }),
      { seed: HOSTILE_SEED, numRuns: RUNS },
    );
  });
});

/** Without `cache`: a `prompt_cache_key` exactly when the option gives one. */
function assertPlainKey(request: object, options: unknown): void {
  const given = (options as { promptCacheKey?: unknown } | undefined)
    ?.promptCacheKey;
  assert.equal(
    (request as { prompt_cache_key?: unknown }).prompt_cache_key,
    given,
  );
}
