/**
 * The Node built-ins the command uses (Node, Deno and Bun all provide
 * them), imported at run time under computed specifiers: the npm build's
 * module graph (dnt) cannot load `node:` modules, so no `node:` import may
 * appear statically. `process` is a global on all three runtimes.
 *
 * @module
 */

/** A token of `parseArgs({ tokens: true })`. */
export type ArgToken =
  | { kind: "positional"; index: number; value: string }
  | {
    kind: "option";
    index: number;
    /** The option's name (`scope` for `--scope`). */
    name: string;
    /** The option as written (`--scope`, `-h`). */
    rawName: string;
    value?: string;
    /** Whether the value came after `=`. */
    inlineValue?: boolean;
  }
  | { kind: "option-terminator"; index: number };

/** A file-system event of `fs/promises`' `watch`. */
export interface FileEvent {
  eventType: string;
  filename: string | null;
}

/** The parts of `node:util`, `node:fs/promises`, `node:path` and `node:url` in use. */
export interface NodeBuiltins {
  parseArgs(config: {
    args: string[];
    allowPositionals: boolean;
    strict: boolean;
    tokens: true;
    options: Record<string, { type: "string" | "boolean"; short?: string }>;
  }): { tokens: ArgToken[] };
  stat(path: string): Promise<unknown>;
  watch(
    path: string,
    options: { signal: AbortSignal },
  ): AsyncIterable<FileEvent>;
  resolve(path: string): string;
  dirname(path: string): string;
  basename(path: string): string;
  pathToFileURL(path: string): URL;
  /**
   * What `node --check FILE` writes to stderr (`""` when it parses, or
   * when it cannot run); Node only.
   */
  checkSyntax(file: string): Promise<string>;
}

function builtin(name: string): Promise<Record<string, unknown>> {
  return import(["node", name].join(":"));
}

const [util, fs, path, url] = await Promise.all(
  ["util", "fs/promises", "path", "url"].map(builtin),
);

/** The built-ins, loaded once. */
function checkSyntax(file: string): Promise<string> {
  return builtin("child_process").then((childProcess) =>
    new Promise<string>((resolve) => {
      const execFile = childProcess.execFile as (
        command: string,
        args: string[],
        options: { timeout: number },
        done: (error: unknown, stdout: string, stderr: string) => void,
      ) => void;
      execFile(
        process.execPath,
        ["--check", file],
        { timeout: 5_000 },
        (_error, _stdout, stderr) => resolve(String(stderr ?? "")),
      );
    })
  ).catch(() => "");
}

export const node: NodeBuiltins = {
  parseArgs: util.parseArgs,
  stat: fs.stat,
  watch: fs.watch,
  resolve: path.resolve,
  dirname: path.dirname,
  basename: path.basename,
  pathToFileURL: url.pathToFileURL,
  checkSyntax,
} as NodeBuiltins;
