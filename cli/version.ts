/**
 * The package's version, for `rxprompt --version`. A test keeps it equal to
 * deno.json's (importing deno.json here would put it in the npm build).
 *
 * @module
 */

/** The version of `@rxprompt/system-prompt` this command belongs to. */
export const VERSION = "0.4.0";
