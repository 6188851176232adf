/**
 * The `rxprompt` command: render, inspect, check, diff and watch the system
 * prompt of a config module. Runs on Deno, Node 22 and 24 (JavaScript
 * configs; TypeScript with type stripping) and Bun.
 *
 * ```sh
 * deno run -A jsr:@rxprompt/system-prompt/cli render examples/coding_agent.ts
 * npx rxprompt check prompt.config.mjs --max-tokens 8000
 * ```
 *
 * `rxprompt --help` lists the commands; exit codes are 0 (ok), 1
 * (findings) and 2 (usage or config error).
 *
 * A TypeScript config can check its default export against
 * {@linkcode RxpromptConfig} (a type-only import: importing a value from
 * this module runs the command):
 *
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import type { RxpromptConfig } from "@rxprompt/system-prompt/cli";
 *
 * const prompt = new SystemPrompt();
 * export default { prompt } satisfies RxpromptConfig;
 * ```
 *
 * @module
 */

import { processOutput } from "./output.ts";

export type { RxpromptConfig, RxpromptConfigObject } from "./config_types.ts";
import { run } from "./run.ts";

const output = processOutput();
const code = await run(process.argv.slice(2), output);
await output.flush();
// Exit now: a config may hold timers or sockets that would keep the process
// alive after its registry is disposed.
process.exit(code);
