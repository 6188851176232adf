/**
 * `rxprompt check CONFIG [--scope NAME]... [--max-tokens N] [--strict]`:
 * assembles the global view and every named scope (or only the `--scope`
 * ones) twice and reports, one line each, every assembly or render error,
 * every pair of assemblies whose system prompt (volatile sections left out)
 * or tools differ (a value that breaks prompt caching), every view over the
 * token budget, and `lintCache`'s findings. Exit 1 on any finding but a
 * cache-lint warning (those too with `--strict`).
 *
 * @module
 */

import {
  type CacheFinding,
  diffAssemblies,
  lintCache,
  type PromptAssembly,
} from "../mod.ts";
import type { Args } from "./args.ts";
import {
  describeTarget,
  disposeConfig,
  type Rendered,
  rendered,
  renderTarget,
  targetJson,
} from "./assembly.ts";
import { CliError, describeError } from "./cli_error.ts";
import {
  loadConfig,
  type PromptConfig,
  type Target,
  target,
  targets,
} from "./config.ts";
import type { Output } from "./output.ts";
import { type CountTokens, requestTokens, tokenCounter } from "./tokens.ts";

/** A finding of `check`. */
export interface Finding {
  scope: string | null;
  kind: "error" | "nondeterministic" | "budget" | "cache";
  message: string;
  /** For `cache` findings: `lintCache`'s code, severity and entry. */
  code?: CacheFinding["code"];
  severity?: CacheFinding["severity"];
  entry?: string;
}

/** One checked view. */
interface Checked {
  scope: string | null;
  /** System prompt plus tools' JSON, when a budget was given. */
  tokens?: number;
}

/** Runs `check`; resolves to the exit code. */
export async function check(args: Args, output: Output): Promise<number> {
  const config = await loadConfig(args.configs[0], {
    timeoutMs: args.timeoutMs,
  });
  try {
    const count = args.maxTokens === undefined
      ? undefined
      : await tokenCounter();
    // --scope NAME (repeatable) checks only those scopes: a harness whose
    // global view is not an agent can still pass.
    const all = args.scopes !== undefined && args.scopes.length > 0
      ? args.scopes.map((name) => target(config, name))
      : targets(config);
    const views: Checked[] = [];
    const findings: Finding[] = [];
    for (const [index, target] of all.entries()) {
      output.progress(
        `check: ${describeTarget(target)} (${index + 1}/${all.length})`,
      );
      const checked = await checkTarget(config, target, {
        count,
        maxTokens: args.maxTokens,
        findings,
        timeoutMs: args.timeoutMs,
      });
      views.push(checked);
    }
    output.done();
    const failing = findings.filter((finding) => fails(finding, args));
    report(output, args, { views, findings, ok: failing.length === 0 });
    return failing.length === 0 ? 0 : 1;
  } finally {
    output.done();
    await disposeConfig(config, args);
  }
}

async function checkTarget(
  config: PromptConfig,
  target: Target,
  budget: {
    count: CountTokens | undefined;
    maxTokens: number | undefined;
    findings: Finding[];
    timeoutMs: number | undefined;
  },
): Promise<Checked> {
  const scope = targetJson(target);
  const where = describeTarget(target);
  function find(kind: Finding["kind"], message: string): Checked {
    budget.findings.push({ scope, kind, message: `${where}: ${message}` });
    return { scope };
  }
  let first: Rendered, second: Rendered;
  try {
    first = await renderTarget(config, target, budget);
    second = await renderTarget(config, target, budget);
  } catch (error) {
    if (error instanceof CliError) throw error;
    return find("error", describeError(error));
  }
  const samePrompt = steadyPrompt(first) === steadyPrompt(second);
  const sameTools = JSON.stringify(first.assembly.tools) ===
    JSON.stringify(second.assembly.tools);
  if (!samePrompt || !sameTools) {
    find("nondeterministic", nondeterminism(first, second));
  }
  lint(first.assembly, (finding) =>
    budget.findings.push({
      scope,
      kind: "cache",
      code: finding.code,
      severity: finding.severity,
      entry: finding.entry,
      message: `${where}: ${finding.entry}: ${finding.message}`,
    }));
  const { count, maxTokens } = budget;
  if (count === undefined || maxTokens === undefined) return { scope };
  const tokens = requestTokens(count, first.assembly).total;
  if (tokens > maxTokens) {
    find(
      "budget",
      `${tokens} tokens (system prompt and tools' JSON) exceed ` +
        `--max-tokens ${maxTokens}`,
    );
  }
  return { scope, tokens };
}

/** Whether a finding fails the check: all but cache warnings, unless strict. */
function fails(finding: Finding, args: Args): boolean {
  return finding.kind !== "cache" || finding.severity === "error" ||
    args.strict === true;
}

/** `lintCache`'s findings; an assembly it cannot read was reported already. */
function lint(
  assembly: PromptAssembly,
  add: (finding: CacheFinding) => void,
): void {
  let findings: CacheFinding[] = [];
  try {
    findings = lintCache(assembly);
  } catch {
    // A listener's malformed stability: the render and the adapters decide.
  }
  findings.forEach(add);
}

/**
 * The assembly without its effectively volatile sections: they may change
 * between two assemblies by design (SPEC 8.7), the rest may not.
 */
function steady(assembly: PromptAssembly): PromptAssembly {
  const sections = assembly.sections.filter((section) =>
    section.stability !== "volatile"
  );
  return sections.length === assembly.sections.length
    ? assembly
    : { ...assembly, sections };
}

function steadyPrompt(view: Rendered): string {
  const assembly = steady(view.assembly);
  return assembly === view.assembly ? view.prompt : rendered(assembly).prompt;
}

/** `the global view and 2 scopes`, or `scope "a" and scope "b"`. */
function checkedViews(views: readonly Checked[]): string {
  if (views[0]?.scope === null) {
    const scopes = views.length - 1;
    return `the global view${
      scopes === 0 ? "" : ` and ${scopes} scope${scopes === 1 ? "" : "s"}`
    }`;
  }
  const names = views.map(({ scope }) => `scope ${JSON.stringify(scope)}`);
  return names.length === 1
    ? names[0]
    : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/** What differs between two assemblies that should have been the same. */
function nondeterminism(first: Rendered, second: Rendered): string {
  let where = "";
  try {
    const diff = diffAssemblies(
      steady(first.assembly),
      steady(second.assembly),
    );
    const offset = diff.prompt.firstChangedOffset;
    where = ` at ${diff.cache.brokenBy}` +
      (offset === undefined ? "" : ` (system prompt offset ${offset})`);
  } catch {
    // An assembly diffAssemblies rejects still differs; say so without where.
  }
  return `two assemblies differ${where}; a provider returns a different ` +
    `value each time, which breaks prompt caching`;
}

function report(
  output: Output,
  args: Args,
  result: { views: Checked[]; findings: Finding[]; ok: boolean },
): void {
  const { views, findings, ok } = result;
  if (args.json) {
    output.line(JSON.stringify({ ok, views, findings }, null, 2));
    return;
  }
  const { red, green, yellow } = output.style;
  for (const { kind, message, code, severity } of findings) {
    const label = kind === "error"
      ? red("error")
      : kind === "budget"
      ? yellow("over budget")
      : kind === "cache"
      ? (severity === "error" ? red(code!) : yellow(code!))
      : yellow("non-deterministic");
    output.line(`${label}: ${message}`);
  }
  if (!ok) return;
  const warnings = findings.length;
  const largest = Math.max(...views.map((view) => view.tokens ?? 0));
  output.line(
    green("ok") +
      `: ${checkedViews(views)} assembled twice, without errors, ` +
      `deterministic` +
      (args.maxTokens === undefined
        ? ""
        : `, at most ${largest} of ${args.maxTokens} tokens`) +
      (warnings === 0
        ? ""
        : `; ${warnings} cache warning${warnings === 1 ? "" : "s"}`),
  );
}
