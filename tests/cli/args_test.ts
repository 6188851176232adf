/**
 * The rxprompt command line's arguments (SPEC 7.10): commands, options,
 * and a one-line CliError for every mistake.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseCommandLine } from "../../cli/args.ts";
import { usage } from "../../cli/help.ts";
import { CliError } from "../../cli/cli_error.ts";

function fails(argv: string[], pattern: RegExp): void {
  assert.throws(() => parseCommandLine(argv), (error) => {
    assert.ok(error instanceof CliError);
    assert.equal(error.message.includes("\n"), false);
    assert.match(error.message, pattern);
    return true;
  });
}

describe("parseCommandLine", () => {
  it("reads each command's configs and options, in any position", () => {
    assert.deepEqual(
      parseCommandLine([
        "render",
        "--format=anthropic",
        "a.ts",
        "--scope",
        "x",
      ]),
      {
        help: false,
        command: "render",
        configs: ["a.ts"],
        json: false,
        scope: "x",
        format: "anthropic",
        maxTokens: undefined,
        timeoutMs: 10_000,
      },
    );
    const check = parseCommandLine([
      "check",
      "a.ts",
      "--max-tokens",
      "800",
      "--json",
    ]);
    assert.ok(!check.help);
    assert.equal(check.maxTokens, 800);
    assert.equal(check.json, true);
    const diff = parseCommandLine(["diff", "a.ts", "b.ts"]);
    assert.ok(!diff.help);
    assert.deepEqual(diff.configs, ["a.ts", "b.ts"]);
  });

  it("makes --json the json format of render, and rejects --json --format text", () => {
    const json = parseCommandLine(["render", "a.ts", "--json"]);
    assert.ok(!json.help);
    assert.equal(json.format, "json");
    const chat = parseCommandLine([
      "render",
      "a.ts",
      "--json",
      "--format",
      "openai-chat",
    ]);
    assert.ok(!chat.help);
    assert.equal(chat.format, "openai-chat");
    fails(["render", "a.ts", "--json", "--format", "text"], /contradict/);
  });

  it("asks for help with --help, -h or help", () => {
    assert.deepEqual(parseCommandLine(["--help"]), { help: true });
    assert.deepEqual(parseCommandLine(["inspect", "-h"]), {
      help: true,
      command: "inspect",
    });
    assert.deepEqual(parseCommandLine(["help", "diff"]), {
      help: true,
      command: "diff",
    });
    assert.match(usage(), /^rxprompt COMMAND CONFIG\.\.\./);
    assert.match(
      usage("diff"),
      /^rxprompt diff CONFIG_A CONFIG_B \[--scope NAME\] \[--fail-on cache-break\|any\] \[--json\]/,
    );
  });

  it("rejects every malformed command line with one line", () => {
    fails(
      [],
      /^missing command; expected one of render, inspect, check, diff, watch/,
    );
    fails(["paint"], /^unknown command "paint"/);
    fails(["help", "paint"], /^unknown command "paint"/);
    fails(["__proto__", "a.ts"], /^unknown command "__proto__"/);
    fails(
      ["inspect", "a.ts", "--format", "json"],
      /^inspect has no option --format; its options are --scope, --port, --session, --recording, --timeout, --serve, --json/,
    );
    fails(["inspect", "a.ts", "--fail-on", "any"], /^inspect has no option/);
    fails(["check", "a.ts", "--scope=x", "--scope=x"], /names "x" twice/);
    fails(["render", "a.ts", "--version"], /--version takes no command/);
    for (const timeout of ["0", "-1", "1e3", "x", "", "86401"]) {
      fails(
        ["render", "a.ts", `--timeout=${timeout}`],
        /--timeout must be a positive number of seconds/,
      );
    }
    fails(["diff", "a.ts", "b.ts", "--fail-on=all"], /unknown --fail-on/);
    fails(["render", "a.ts", "-x"], /^render has no option -x/);
    fails(
      ["render", "a.ts", "--json=yes"],
      /^option --json of render takes no value/,
    );
    fails(
      ["render", "a.ts", "--scope"],
      /^option --scope of render needs a value/,
    );
    fails(["render", "a.ts", "--scope", "-x"], /needs a value/);
    fails(["render", "a.ts", "--scope=a", "--scope=b"], /given twice/);
    fails(["diff", "a.ts"], /^diff takes CONFIG_A CONFIG_B, got a\.ts/);
    fails(["watch"], /^watch takes CONFIG, got none/);
    for (
      const budget of ["-1", "1.5", "1e3", "", "12x", "99999999999999999999"]
    ) {
      fails(
        ["check", "a.ts", `--max-tokens=${budget}`],
        /--max-tokens must be a whole number/,
      );
    }
  });

  it("reads --version, --timeout, check's repeated --scope and diff's --fail-on", () => {
    assert.deepEqual(parseCommandLine(["--version"]), {
      help: true,
      version: true,
    });
    const check = parseCommandLine([
      "check",
      "a.ts",
      "--scope",
      "coder",
      "--scope=reviewer",
      "--timeout",
      "2.5",
    ]);
    assert.ok(!check.help);
    assert.deepEqual(check.scopes, ["coder", "reviewer"]);
    assert.equal(check.scope, undefined);
    assert.equal(check.timeoutMs, 2500);
    const all = parseCommandLine(["check", "a.ts"]);
    assert.ok(!all.help);
    assert.deepEqual(all.scopes, []);
    const diff = parseCommandLine(["diff", "a.ts", "b.ts"]);
    assert.ok(!diff.help);
    assert.equal(diff.failOn, "cache-break");
    const any = parseCommandLine(["diff", "a.ts", "b.ts", "--fail-on", "any"]);
    assert.ok(!any.help);
    assert.equal(any.failOn, "any");
  });

  it("keeps a value after -- as a config path", () => {
    const request = parseCommandLine(["render", "--", "--odd.ts"]);
    assert.ok(!request.help);
    assert.deepEqual(request.configs, ["--odd.ts"]);
  });

  it("reads inspect --serve with its --port and --session, and only with it", () => {
    const serve = parseCommandLine([
      "inspect",
      "a.ts",
      "--serve",
      "--port=8123",
      "--session",
      "s.ts",
    ]);
    assert.ok(!serve.help);
    assert.equal(serve.serve, true);
    assert.equal(serve.port, 8123);
    assert.equal(serve.session, "s.ts");
    const free = parseCommandLine(["inspect", "--serve", "a.ts"]);
    assert.ok(!free.help);
    assert.equal(free.port, 0);
    assert.equal(free.session, undefined);
    const table = parseCommandLine(["inspect", "a.ts"]);
    assert.ok(!table.help);
    assert.equal(table.serve, undefined);
    assert.equal(table.port, undefined);
    const check = parseCommandLine(["check", "a.ts", "--strict"]);
    assert.ok(!check.help);
    assert.equal(check.strict, true);
    assert.equal(check.serve, undefined);
    fails(
      ["inspect", "a.ts", "--port", "80"],
      /^option --port of inspect needs --serve/,
    );
    fails(
      ["inspect", "a.ts", "--session=s.ts"],
      /^option --session of inspect needs --serve/,
    );
    for (const port of ["-1", "65536", "x", "1.5", ""]) {
      fails(
        ["inspect", "a.ts", "--serve", `--port=${port}`],
        /^--port must be a whole number from 0 to 65535/,
      );
    }
    fails(
      ["inspect", "a.ts", "--serve", "--json"],
      /^inspect --serve serves a page/,
    );
    fails(["inspect", "a.ts", "--serve", "--scope", "x"], /leave out --scope/);
    fails(
      ["inspect", "a.ts", "--serve=yes"],
      /--serve of inspect takes no value/,
    );
    fails(["render", "a.ts", "--serve"], /^render has no option --serve/);
    assert.match(
      usage("inspect"),
      /\[--port N\] \[--session SESSION\] \[--recording FILE\] \[--serve\]/,
    );
  });
});
