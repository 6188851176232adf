/**
 * What a config's code throws outside every wait of a long-running command
 * (`watch`, `inspect --serve`): a timer, a callback, a promise nobody
 * awaits. The command goes on (a config is imported again on each save,
 * and its old registry is disposed while the old module's timers may
 * still fire); each distinct error is one line on stderr.
 *
 * @module
 */

import { describeError } from "./cli_error.ts";
import type { Output } from "./output.ts";

/** Distinct errors shown before the rest are counted only. */
const SHOWN = 20;

/**
 * Reports uncaught exceptions and unhandled rejections as lines on stderr
 * instead of ending the process, until the returned function is called.
 * A call into a disposed registry (a replaced config's timer) says how to
 * stop it: the config's `dispose` export.
 *
 * @param going what goes on, for the line: `the server`, `the watch`
 */
export function reportStrayErrors(output: Output, going: string): () => void {
  const seen = new Set<string>();
  const report = (error: unknown) => {
    const text = describeError(error);
    if (seen.has(text) || seen.size > SHOWN) return;
    seen.add(text);
    if (seen.size > SHOWN) {
      output.error(`more errors outside an assembly; not shown`);
      return;
    }
    const disposed = (error as { code?: unknown } | null)?.code === "DISPOSED";
    output.error(
      `the config's code threw outside an assembly (${going} goes on): ` +
        text +
        (disposed
          ? "; export dispose from the config to stop its timers and " +
            "callbacks when it is replaced"
          : ""),
    );
  };
  process.on("uncaughtException", report);
  process.on("unhandledRejection", report);
  return () => {
    process.off("uncaughtException", report);
    process.off("unhandledRejection", report);
  };
}
