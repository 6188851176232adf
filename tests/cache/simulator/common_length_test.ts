/**
 * The automatic cache's partial match reads the text two blocks start
 * with (`commonLength`, found by halves): the same length as comparing
 * them one code unit at a time, for texts that share any part.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { commonLength } from "../../../src/cache/simulator/automatic_cache.ts";
import { fuzzRuns } from "../../fuzz_runs.ts";

/** The length one code unit at a time. */
function oneByOne(a: string, b: string): number {
  let same = 0;
  const limit = Math.min(a.length, b.length);
  while (same < limit && a.charCodeAt(same) === b.charCodeAt(same)) same++;
  return same;
}

describe("commonLength", () => {
  it("is the length of the text both start with", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 300 }),
        fc.string({ maxLength: 40 }),
        fc.string({ maxLength: 40 }),
        (shared, a, b) => {
          const expected = oneByOne(shared + a, shared + b);
          assert.equal(commonLength(shared + a, shared + b), expected);
          assert.equal(commonLength(shared + b, shared + a), expected);
        },
      ),
      { numRuns: fuzzRuns(500) },
    );
  });

  it("reads a marked copy of a tool output up to its mark", () => {
    const output = '{"type":"function_call_output","output":[{"text":"' +
      "x".repeat(2000) + '"';
    const plain = output + "}]}";
    const marked = output + ',"prompt_cache_breakpoint":{"mode":"explicit"}}]}';
    assert.equal(commonLength(plain, marked), output.length);
    assert.equal(commonLength(plain, plain), plain.length);
    assert.equal(commonLength(plain, output), output.length);
    assert.equal(commonLength("", plain), 0);
    assert.equal(commonLength("a", "b"), 0);
  });
});
