import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseCommandLine } from "../../cli/args.ts";
import { usage } from "../../cli/help.ts";
import { CliError } from "../../cli/cli_error.ts";

describe("simulate's arguments", () => {
  it("reads the session and --provider", () => {
    assert.deepEqual(
      parseCommandLine([
        "simulate",
        "s.ts",
        "--provider",
        "openai-explicit",
        "--json",
      ]),
      {
        help: false,
        command: "simulate",
        configs: ["s.ts"],
        json: true,
        scope: undefined,
        format: "json",
        maxTokens: undefined,
        timeoutMs: 10_000,
        provider: "openai-explicit",
      },
    );
    const plain = parseCommandLine(["simulate", "s.ts"]);
    assert.ok(!("provider" in plain));
  });

  it("rejects an unknown provider and --provider on another command", () => {
    assert.throws(
      () => parseCommandLine(["simulate", "s.ts", "--provider=mistral"]),
      (error) =>
        error instanceof CliError &&
        /unknown --provider "mistral"; expected one of anthropic, openai, openai-explicit, bedrock, gemini/
          .test(error.message),
    );
    assert.throws(
      () => parseCommandLine(["render", "c.ts", "--provider", "openai"]),
      (error) =>
        error instanceof CliError &&
        /render has no option --provider/.test(error.message),
    );
  });

  it("documents the command", () => {
    assert.match(usage(), /simulate\s+SESSION: how much of a session's input/);
    assert.match(
      usage("simulate"),
      /rxprompt simulate SESSION \[--provider anthropic\|openai\|openai-explicit\|bedrock\|gemini\] \[--json\]/,
    );
  });
});
