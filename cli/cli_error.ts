/**
 * The command line's usage and config errors: one clear line on stderr and
 * exit code 2. Findings (exit 1) are results, not errors.
 *
 * @module
 */

/** A usage or config error; its message is the whole stderr line. */
export class CliError extends Error {
  /** Creates the error; `message` is one line. */
  constructor(message: string) {
    super(message);
    this.name = "CliError";
  }
}

/**
 * An error in one line: a `SystemPromptError` (or any error with a string
 * `code`) as `CODE: message`, another error as `Name: message`, anything
 * else as its string form.
 */
export function describeError(error: unknown): string {
  let text: string;
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const prefix = typeof code === "string"
      ? `${code}: `
      : error.name === "Error"
      ? ""
      : `${error.name}: `;
    text = prefix + error.message;
  } else {
    text = safeString(error);
  }
  return text.split("\n", 1)[0].trim() || "(no message)";
}

/** `String(value)`, or the object tag when that throws (a null prototype). */
function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
