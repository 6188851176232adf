/**
 * Runs the rxprompt command as a subprocess of Deno (`deno run -A
 * cli/main.ts`) in the repository root. Deno-only: imported by the
 * `*_deno_test.ts` files.
 */

/** The repository root. */
export const ROOT: string = new URL("../../", import.meta.url).pathname;

/** A path under the repository root, for the command line. */
export function repoPath(path: string): string {
  return ROOT + path;
}

/** What a finished run printed and returned. */
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The deno arguments that run the command. */
export function cliArgs(args: readonly string[]): string[] {
  return ["run", "-A", "--quiet", repoPath("cli/main.ts"), ...args];
}

/** Runs `rxprompt ...args` to the end; stdout and stderr are pipes. */
export async function rxprompt(
  args: readonly string[],
  env: Record<string, string> = { NO_COLOR: "1" },
): Promise<Run> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: cliArgs(args),
    cwd: ROOT,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code,
    stdout: decoder.decode(stdout),
    stderr: decoder.decode(stderr),
  };
}

/** The lines of a stream, as they arrive. */
export async function* lines(
  stream: ReadableStream<Uint8Array>,
): AsyncGenerator<string> {
  let rest = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    const parts = (rest + chunk).split("\n");
    rest = parts.pop() ?? "";
    yield* parts;
  }
  if (rest !== "") yield rest;
}

/** Whether text holds an ANSI escape sequence. */
export function hasEscapes(text: string): boolean {
  return text.includes("\x1b");
}
