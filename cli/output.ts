/**
 * Where the command writes: stdout for results, stderr for errors and
 * progress. Colour only on a terminal and never with `NO_COLOR`; the
 * progress line only when stderr is a terminal.
 *
 * @module
 */

/** Text styles; each is the identity when colour is off. */
export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

/** The command's output streams. */
export interface Output {
  /** Styles for stdout. */
  readonly style: Style;
  /** Writes `text` and a newline to stdout. */
  line(text: string): void;
  /** Writes one JSON value on one line to stdout. */
  json(value: unknown): void;
  /** Writes one line to stderr (after clearing the progress line). */
  error(text: string): void;
  /** Shows `text` as the progress line on a terminal's stderr; else nothing. */
  progress(text: string): void;
  /** Clears the progress line. */
  done(): void;
  /** Resolves when stdout and stderr have taken everything written. */
  flush(): Promise<void>;
}

const CODES: Record<keyof Style, [number, number]> = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
};

/** Whether a stream gets colour: a terminal, and `NO_COLOR` unset or empty. */
export function colourFor(stream: { isTTY?: boolean }): boolean {
  const noColour = process.env.NO_COLOR;
  return stream.isTTY === true && (noColour === undefined || noColour === "");
}

/** The styles, coloured or not. */
export function style(colour: boolean): Style {
  const entries = Object.entries(CODES).map(([name, [on, off]]) => [
    name,
    colour
      ? (text: string) => `\x1b[${on}m${text}\x1b[${off}m`
      : (text: string) => text,
  ]);
  return Object.fromEntries(entries) as unknown as Style;
}

/** Whether `error` says the reader of a pipe went away. */
export function isClosedPipe(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "EPIPE" || code === "ERR_STREAM_DESTROYED") return true;
  // Deno's node streams throw a plain Error whose message names EPIPE.
  return error instanceof Error &&
    (error.name === "BrokenPipe" || /\bEPIPE\b/.test(error.message));
}

/**
 * The process's stdout and stderr as an {@linkcode Output}. A closed stdout
 * (`rxprompt render big.config.ts | head`) ends the process quietly with
 * exit 0, as a reader that stopped reading has all it wanted.
 */
export function processOutput(): Output {
  const { stdout, stderr } = process;
  function closed(error: unknown): void {
    if (!isClosedPipe(error)) throw error;
    process.exit(0);
  }
  // Node reports a closed pipe as an 'error' event, later.
  stdout.on("error", closed);
  stderr.on("error", closed);
  function write(stream: { write(text: string): unknown }, text: string): void {
    try {
      stream.write(text);
    } catch (error) {
      // Deno's streams throw it at once.
      closed(error);
    }
  }
  const terminal = stderr.isTTY === true;
  const errorStyle = style(colourFor(stderr));
  // Overwritten with spaces, not an erase escape: NO_COLOR output stays
  // free of escapes.
  let shown = 0;
  function clear(): void {
    if (shown === 0) return;
    write(stderr, "\r" + " ".repeat(shown) + "\r");
    shown = 0;
  }
  return {
    style: style(colourFor(stdout)),
    line(text) {
      write(stdout, text + "\n");
    },
    json(value) {
      write(stdout, JSON.stringify(value) + "\n");
    },
    error(text) {
      clear();
      write(stderr, errorStyle.red("rxprompt: ") + text + "\n");
    },
    progress(text) {
      if (!terminal) return;
      const width = Math.max(10, (stderr.columns ?? 80) - 1);
      const line = text.slice(0, width);
      clear();
      write(stderr, errorStyle.dim(line));
      shown = line.length;
    },
    done: clear,
    flush() {
      return new Promise((resolve) => {
        try {
          stdout.write("", () => stderr.write("", () => resolve()));
        } catch (error) {
          closed(error);
        }
      });
    },
  };
}
