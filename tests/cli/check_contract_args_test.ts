/**
 * `rxprompt check`'s cache-contract arguments (SPEC 9.5): `--golden FILE`,
 * `--update`, `--shares PARENT CHILD` and `--provider`, each mistake one
 * line.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseCommandLine } from "../../cli/args.ts";
import { CliError } from "../../cli/cli_error.ts";

function fails(argv: string[], pattern: RegExp): void {
  assert.throws(() => parseCommandLine(argv), (error) => {
    assert.ok(error instanceof CliError);
    assert.equal(error.message.includes("\n"), false);
    assert.match(error.message, pattern);
    return true;
  });
}

describe("check --golden, --update, --shares", () => {
  it("reads --golden FILE and --update", () => {
    const request = parseCommandLine([
      "check",
      "a.ts",
      "--golden",
      "golden.json",
      "--update",
    ]);
    assert.ok(!request.help);
    assert.deepEqual(request.configs, ["a.ts"]);
    assert.equal(request.golden, "golden.json");
    assert.equal(request.update, true);
    assert.equal(request.strict, undefined);
    const plain = parseCommandLine(["check", "a.ts", "--golden=g.json"]);
    assert.ok(!plain.help);
    assert.equal(plain.update, undefined);
    assert.equal("shares" in plain, false);
  });

  it("reads --shares PARENT CHILD wherever the config is, and --provider", () => {
    for (
      const argv of [
        ["check", "a.ts", "--shares", "coder", "reviewer"],
        ["check", "--shares", "coder", "reviewer", "a.ts"],
      ]
    ) {
      const request = parseCommandLine(argv);
      assert.ok(!request.help);
      assert.deepEqual(request.configs, ["a.ts"]);
      assert.deepEqual(request.shares, ["coder", "reviewer"]);
    }
    const one = parseCommandLine([
      "check",
      "a.ts",
      "--shares",
      "coder",
      "reviewer",
      "--provider",
      "openai",
      "--strict",
    ]);
    assert.ok(!one.help);
    assert.equal(one.provider, "openai");
    assert.equal(one.strict, true);
  });

  it("rejects --update without --golden, --shares without two names, --provider without --shares", () => {
    fails(["check", "a.ts", "--update"], /^--update of check .* --golden FILE/);
    fails(
      ["check", "a.ts", "--shares", "coder"],
      /^--shares takes two scope names/,
    );
    fails(["check", "a.ts", "--shares=coder", "b"], /^--shares takes two/);
    fails(["check", "a.ts", "--provider", "openai"], /give it --shares/);
    fails(["check", "a.ts", "--golden"], /needs a value/);
    fails(
      ["render", "a.ts", "--golden", "g.json"],
      /^render has no option --golden/,
    );
    fails(["render", "a.ts", "--update"], /^render has no option --update/);
    fails(
      ["check", "a.ts", "--shares", "a", "b", "--provider", "mistral"],
      /unknown --provider "mistral"/,
    );
  });
});
