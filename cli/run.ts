/**
 * The command line without the process: parses the arguments, runs one
 * command, and maps the outcome to an exit code: 0 ok, 1 findings, 2 a
 * usage or config error (one line on stderr).
 *
 * @module
 */

import { type CommandName, parseCommandLine } from "./args.ts";
import { usage } from "./help.ts";
import type { Args } from "./args.ts";
import { check } from "./check.ts";
import { describeError } from "./cli_error.ts";
import { diff } from "./diff.ts";
import { inspect } from "./inspect/inspect.ts";
import type { Output } from "./output.ts";
import { render } from "./render.ts";
import { VERSION } from "./version.ts";
import { report } from "./report.ts";
import { simulate } from "./simulate.ts";
import { watch } from "./watch.ts";

const RUN: Record<
  CommandName,
  (args: Args, output: Output) => Promise<number>
> = { render, inspect, check, diff, watch, simulate, report };

/** Runs the command `argv` names; resolves to the exit code. */
export async function run(
  argv: readonly string[],
  output: Output,
): Promise<number> {
  try {
    const request = parseCommandLine(argv);
    if (request.help) {
      output.line(
        request.version ? `rxprompt ${VERSION}` : usage(request.command),
      );
      return 0;
    }
    return await RUN[request.command](request, output);
  } catch (error) {
    // A CliError's message is the line; anything else escaped a command
    // (a config that misbehaves in a way no check foresaw): still one line.
    output.error(describeError(error).replace(/^CliError: /, ""));
    return 2;
  } finally {
    output.done();
  }
}
