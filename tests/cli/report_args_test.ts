import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseCommandLine } from "../../cli/args.ts";
import { usage } from "../../cli/help.ts";
import { CliError } from "../../cli/cli_error.ts";

function fails(argv: string[], message: RegExp): void {
  assert.throws(
    () => parseCommandLine(argv),
    (error) => error instanceof CliError && message.test(error.message),
  );
}

describe("report's and inspect --recording's arguments", () => {
  it("reads the file, --provider, --json and --timeout", () => {
    const args = parseCommandLine([
      "report",
      "session.jsonl",
      "--provider",
      "openai-explicit",
      "--json",
      "--timeout",
      "3",
    ]);
    assert.equal(args.help, false);
    if (args.help) return;
    assert.equal(args.command, "report");
    assert.deepEqual(args.configs, ["session.jsonl"]);
    assert.equal(args.provider, "openai-explicit");
    assert.equal(args.json, true);
    assert.equal(args.timeoutMs, 3000);
  });

  it("rejects a missing file, an unknown provider and another command's option", () => {
    fails(["report"], /report takes FILE, got none/);
    fails(["report", "a.jsonl", "--provider", "mistral"], /unknown --provider/);
    fails(
      ["report", "a.jsonl", "--scope", "x"],
      /report has no option --scope/,
    );
  });

  it("inspect --serve takes --recording, not with --session nor without --serve", () => {
    const args = parseCommandLine([
      "inspect",
      "config.ts",
      "--serve",
      "--recording",
      "session.jsonl",
    ]);
    assert.ok(!args.help && args.recording === "session.jsonl");
    fails(
      ["inspect", "config.ts", "--recording", "s.jsonl"],
      /option --recording of inspect needs --serve/,
    );
    fails(
      [
        "inspect",
        "config.ts",
        "--serve",
        "--recording",
        "s.jsonl",
        "--session",
        "s.ts",
      ],
      /a session module or a recording, not both/,
    );
  });

  it("documents the command", () => {
    const text = usage("report");
    assert.match(text, /^rxprompt report FILE \[--provider /);
    assert.match(text, /cut mid-line/);
    assert.match(usage(), /report\s+FILE: /);
    assert.match(usage("inspect"), /--recording F/);
  });
});
