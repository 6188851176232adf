/**
 * `rxprompt render CONFIG [--scope NAME] [--format F]`: the rendered system
 * prompt, the whole assembly as JSON, or the request fields of a form's
 * adapter (`ProviderForm.render`).
 *
 * @module
 */

import { formNamed } from "../adapters/forms.ts";
import type { Args, Format } from "./args.ts";
import {
  describeTarget,
  disposeConfig,
  type Rendered,
  renderTarget,
  targetJson,
} from "./assembly.ts";
import { CliError, describeError } from "./cli_error.ts";
import { loadConfig, target as targetOf } from "./config.ts";
import type { Output } from "./output.ts";

/** Runs `render`; resolves to the exit code. */
export async function render(args: Args, output: Output): Promise<number> {
  const config = await loadConfig(args.configs[0], {
    timeoutMs: args.timeoutMs,
  });
  try {
    const target = targetOf(config, args.scope);
    let text: string;
    try {
      const result = await renderTarget(config, target, args);
      text = formatted(args.format ?? "text", result, targetJson(target));
    } catch (error) {
      if (error instanceof CliError) throw error;
      output.error(
        `${args.format ?? "render"} of ${describeTarget(target)} failed: ` +
          describeError(error),
      );
      return 1;
    }
    output.line(text);
    return 0;
  } finally {
    await disposeConfig(config, args);
  }
}

function formatted(
  format: Format,
  { assembly, prompt, runtimeContext }: Rendered,
  scope: string | null,
): string {
  if (format === "text") return prompt;
  if (format === "json") {
    return pretty({ scope, prompt, runtimeContext, assembly });
  }
  // A form's request fields (its id or 0.4 name, as args.ts checked).
  return pretty(formNamed(format)!.render!(assembly));
}

function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
