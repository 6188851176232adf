/**
 * Fuzz of the config loader: whatever a config's default export is, the
 * loader either accepts it (a branded SystemPrompt in one of the three
 * shapes) or rejects it with one CliError line naming the config. It never
 * throws anything else and never accepts a value without a SystemPrompt.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { SystemPrompt } from "../../mod.ts";
import { CliError } from "../../cli/cli_error.ts";
import { readConfig } from "../../cli/config.ts";
import { fuzzRuns } from "../fuzz_runs.ts";

const SEED = 20261202;
const RUNS = fuzzRuns(300);
const SOURCE = "fuzz.config.mjs";
const prompt = new SystemPrompt();

/** A value that is not a valid config, in every JavaScript type. */
const value = fc.oneof(
  fc.anything({
    withBigInt: true,
    withMap: true,
    withSet: true,
    withDate: true,
    withTypedArray: true,
    withNullPrototype: true,
  }),
  fc.constantFrom(
    Symbol("s"),
    () => undefined,
    () => Promise.resolve(1),
    class {},
    Promise.resolve(5),
    new Error("x"),
    /re/,
  ),
);

/** The ways a config wraps its value: as it is, in a function, async, in the object form. */
const wrapped = fc.tuple(
  value,
  fc.constantFrom("bare", "function", "async", "prompt", "scopes", "context"),
)
  .map(([inner, how]): unknown => {
    switch (how) {
      case "bare":
        return inner;
      case "function":
        return () => inner;
      case "async":
        return async () => await Promise.resolve(inner);
      case "prompt":
        return { prompt: inner };
      case "scopes":
        return { prompt, scopes: inner };
      case "context":
        return { prompt, context: inner };
    }
  });

async function outcome(
  exported: unknown,
): Promise<{ accepted: boolean; message?: string }> {
  try {
    await readConfig({ default: exported }, SOURCE);
    return { accepted: true };
  } catch (error) {
    assert.ok(error instanceof CliError, `only CliError, got ${String(error)}`);
    return { accepted: false, message: error.message };
  }
}

describe("readConfig (fuzz)", () => {
  it("rejects every malformed default export with one line naming the config", async () => {
    await fc.assert(
      fc.asyncProperty(wrapped, async (exported) => {
        const { accepted, message } = await outcome(exported);
        if (accepted) {
          // Only the object forms around the real prompt can be valid.
          const object = exported as {
            prompt?: unknown;
            scopes?: unknown;
            context?: unknown;
          };
          assert.equal(object.prompt, prompt);
          const { scopes, context } = object;
          assert.ok(
            scopes === undefined ||
              (typeof scopes === "object" && scopes !== null &&
                !Array.isArray(scopes)),
          );
          if (typeof scopes === "object" && scopes !== null) {
            for (const key of Object.values(scopes)) {
              assert.ok(key !== null && key !== undefined);
            }
          }
          assert.ok(context === undefined || typeof context === "function");
          return;
        }
        assert.equal(message!.includes("\n"), false, `one line: ${message}`);
        assert.ok(message!.startsWith(`config ${SOURCE}`), message);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
