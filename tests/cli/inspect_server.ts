/**
 * `rxprompt inspect --serve` as a subprocess for the tests: started on a
 * free port, its URL read from stdout, stopped with SIGINT. Deno-only.
 */
import { cliArgs, lines, ROOT } from "./cli_process.ts";

/** A running `rxprompt inspect --serve`. */
export interface Server {
  url: string;
  stderr(): string;
  /** SIGINT, then the exit code and what it printed. */
  stop(): Promise<{ code: number; stdout: string[] }>;
}

/** Starts `rxprompt inspect ...args --serve --port 0`; resolves once it listens. */
export async function serve(
  args: string[],
  env: Record<string, string> = {},
): Promise<Server> {
  const child = new Deno.Command(Deno.execPath(), {
    args: cliArgs(["inspect", ...args, "--serve", "--port", "0"]),
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  const errors = (async () => {
    for await (const line of lines(child.stderr)) stderr += line + "\n";
  })();
  const out = lines(child.stdout);
  const printed: string[] = [];
  let url: string | undefined;
  // Read with next(), not for-of and break: a break would close the stream.
  while (url === undefined) {
    const { value: line, done } = await out.next();
    if (done) break;
    printed.push(line);
    url = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(line)?.[1];
  }
  if (url === undefined) {
    await child.status;
    await errors;
    throw new Error(`no URL printed; stderr: ${stderr}`);
  }
  return {
    url,
    stderr: () => stderr,
    async stop() {
      try {
        child.kill("SIGINT");
      } catch {
        // It has exited already: its code tells how.
      }
      for await (const line of out) printed.push(line);
      const { code } = await child.status;
      await errors;
      return { code, stdout: printed };
    },
  };
}
