/**
 * `rxprompt diff CONFIG_A CONFIG_B [--scope NAME]`: what changed between
 * the assemblies of two configs, and where the prompt cache breaks (SPEC
 * 7.9), readable or as the `PromptDiff` JSON. Exit 1 when they differ, as
 * diff(1) does.
 *
 * @module
 */

import { diffAssemblies } from "../mod.ts";
import type { Args } from "./args.ts";
import {
  describeTarget,
  disposeConfig,
  type Rendered,
  renderTarget,
} from "./assembly.ts";
import { CliError, describeError } from "./cli_error.ts";
import { loadConfig, type PromptConfig, target } from "./config.ts";
import { diffReport } from "./diff_report.ts";
import type { Output } from "./output.ts";

/** Runs `diff`; resolves to the exit code. */
export async function diff(args: Args, output: Output): Promise<number> {
  const [pathA, pathB] = args.configs;
  const configs: PromptConfig[] = [];
  try {
    configs.push(await loadConfig(pathA, { timeoutMs: args.timeoutMs }));
    configs.push(await loadConfig(pathB, { timeoutMs: args.timeoutMs }));
    const sides: Rendered[] = [];
    for (const config of configs) {
      const chosen = target(config, args.scope);
      try {
        sides.push(await renderTarget(config, chosen));
      } catch (error) {
        if (error instanceof CliError) throw error;
        output.error(
          `assembly of ${describeTarget(chosen)} of ${config.source} ` +
            `failed: ${describeError(error)}`,
        );
        return 1;
      }
    }
    const [before, after] = sides;
    let result;
    try {
      result = diffAssemblies(before.assembly, after.assembly);
    } catch (error) {
      output.error(`cannot compare the assemblies: ${describeError(error)}`);
      return 1;
    }
    if (args.json) {
      output.line(JSON.stringify(result, null, 2));
    } else {
      const prompts = { before: before.prompt, after: after.prompt };
      for (const line of diffReport(result, prompts, output.style)) {
        output.line(line);
      }
    }
    return result.identical ? 0 : 1;
  } finally {
    for (const config of configs) await disposeConfig(config);
  }
}
