/**
 * The number of runs of a fast-check property: `RXPROMPT_FUZZ_RUNS` when it
 * is set (the mutation run sets it low, to test many mutants quickly), else
 * the property's own default.
 *
 * Works on Deno, Node and Bun. On Deno the variable is read only when the
 * env permission for it is granted, so a run without `--allow-env` neither
 * fails nor prompts: it uses the default.
 */

interface DenoEnv {
  permissions?: {
    querySync?: (descriptor: { name: "env"; variable: string }) => {
      state: string;
    };
  };
  env?: { get(name: string): string | undefined };
}

interface NodeProcess {
  env?: Record<string, string | undefined>;
}

const VARIABLE = "RXPROMPT_FUZZ_RUNS";

/** `RXPROMPT_FUZZ_RUNS` as a positive integer, else `defaultRuns`. */
export function fuzzRuns(defaultRuns: number): number {
  const value = readVariable();
  if (value === undefined || value === "") return defaultRuns;
  const runs = Number(value);
  if (!Number.isSafeInteger(runs) || runs < 1) {
    throw new Error(
      `${VARIABLE} must be a positive integer (the number of runs of each ` +
        `property test); got ${JSON.stringify(value)}.`,
    );
  }
  return runs;
}

function readVariable(): string | undefined {
  const deno = (globalThis as { Deno?: DenoEnv }).Deno;
  const process = (globalThis as { process?: NodeProcess }).process;
  try {
    if (deno !== undefined) {
      // Deno also has `process`, whose env reads need the same permission.
      const state = deno.permissions?.querySync?.({
        name: "env",
        variable: VARIABLE,
      }).state;
      if (state !== "granted") return undefined;
    }
    if (process?.env !== undefined) return process.env[VARIABLE];
    return deno?.env?.get(VARIABLE);
  } catch {
    return undefined;
  }
}
