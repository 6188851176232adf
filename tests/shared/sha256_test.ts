/**
 * The adapters' synchronous SHA-256 (used by `promptCacheKey`): the FIPS
 * 180-4 / NIST test vectors, every padding boundary, and random strings
 * (including lone surrogates and astral characters) against `node:crypto`.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fc from "fast-check";
import { sha256Hex } from "../../src/shared/sha256.ts";

const SEED = 20261203;

function reference(text: string): string {
  return createHash("sha256").update(new TextEncoder().encode(text))
    .digest("hex");
}

describe("sha256Hex", () => {
  it("matches the NIST test vectors", () => {
    assert.equal(
      sha256Hex(""),
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
    assert.equal(
      sha256Hex("abc"),
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    assert.equal(
      sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    );
    assert.equal(
      sha256Hex(
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno" +
          "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
      ),
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
    );
    assert.equal(
      sha256Hex("a".repeat(1_000_000)),
      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
    );
  });

  it("agrees with node:crypto at every padding boundary", () => {
    for (let length = 0; length <= 200; length++) {
      const text = "x".repeat(length);
      assert.equal(sha256Hex(text), reference(text), `length ${length}`);
    }
  });

  it(`agrees with node:crypto on random strings, UTF-8 included (seed ${SEED})`, () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 300 }),
        (text) => assert.equal(sha256Hex(text), reference(text)),
      ),
      { seed: SEED, numRuns: 300 },
    );
    // A lone surrogate encodes as U+FFFD, as TextEncoder does everywhere.
    assert.equal(sha256Hex("\uD800"), reference("\uFFFD"));
  });
});
