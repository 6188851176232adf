/**
 * `rxprompt --version` prints `cli/version.ts`'s VERSION, which must follow
 * deno.json's version. Deno-only: the npm test package has no deno.json.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { VERSION } from "../../cli/version.ts";

describe("VERSION", () => {
  it("is deno.json's version", async () => {
    const json = JSON.parse(
      await readFile(new URL("../../deno.json", import.meta.url), "utf8"),
    );
    assert.equal(VERSION, json.version);
  });
});
