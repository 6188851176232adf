/**
 * `rxprompt diff CONFIG_A CONFIG_B [--scope NAME] [--fail-on WHAT]`: what
 * changed between the assemblies of two configs, and where the prompt cache
 * breaks (SPEC 7.9), readable or as the `PromptDiff` JSON. Exit 1 when the
 * cache breaks (the tools or the rendered system prompt changed, SPEC
 * 8.13.10); with `--fail-on any`, when anything differs, as diff(1) does.
 *
 * @module
 */

import { diffAssemblies, type PromptDiff } from "../mod.ts";
import type { Args, FailOn } from "./args.ts";
import { markerHits } from "./cache_hits.ts";
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
        sides.push(await renderTarget(config, chosen, args));
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
      const prompts = {
        before: before.prompt,
        after: after.prompt,
        hits: markerHits(before.assembly, after.assembly, result.cache),
      };
      for (const line of diffReport(result, prompts, output.style)) {
        output.line(line);
      }
    }
    return failed(result, args.failOn ?? "cache-break") ? 1 : 0;
  } finally {
    for (const config of configs) await disposeConfig(config, args);
  }
}

/** Whether the diff fails the `--fail-on` gate. */
function failed(result: PromptDiff, failOn: FailOn): boolean {
  return failOn === "any"
    ? !result.identical
    : result.cache.brokenBy !== undefined;
}
