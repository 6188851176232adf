/**
 * `rxprompt check CONFIG [--scope NAME]... [--max-tokens N] [--strict]
 * [--golden FILE [--update]] [--shares PARENT CHILD [--provider P]]`:
 * assembles the global view and every named scope (or only the `--scope`
 * ones) twice and reports, one line each, every assembly or render error,
 * every pair of assemblies whose system prompt (volatile sections left out)
 * or tools differ (a value that breaks prompt caching), every view over the
 * token budget, and `lintCache`'s findings; with `--golden`, every view
 * whose cached tiers differ from the golden manifest (or, with `--update`,
 * writes it); with `--shares`, what scope CHILD's first request shares with
 * scope PARENT's. Exit 1 on any finding but a cache-lint warning (those too
 * with `--strict`); exit 2 on a golden manifest that cannot be trusted.
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
import {
  checkGolden,
  checkShares,
  goldenViews,
  readGolden,
  sharesLine,
  sharesNothing,
  type SharesOutcome,
} from "./check_golden.ts";
import type { GoldenManifest } from "../adapters/cache/mod.ts";

/** A finding of `check`. */
export interface Finding {
  scope: string | null;
  kind: "error" | "nondeterministic" | "budget" | "cache" | "golden" | "shares";
  message: string;
  /** For `cache` findings: `lintCache`'s code, severity and entry. */
  code?: CacheFinding["code"];
  severity?: CacheFinding["severity"];
  /** For `cache` and `golden` findings: the entry (`tool:NAME`, `section:NAME`). */
  entry?: string;
  /** For `golden` findings: the registrar behind the entry. */
  contributor?: string;
  /** For `golden` findings: what changed (`changed`, `moved`, ...). */
  change?: string;
  /** For `golden` findings: the tokens every later request writes again. */
  rewriteTokens?: number;
  /**
   * For `golden` findings: a section's change, which a running
   * conversation tells inline (SPEC 10.1) instead.
   */
  inline?: true;
}

/** One checked view. */
interface Checked {
  scope: string | null;
  /** System prompt plus tools' JSON, when a budget was given. */
  tokens?: number;
}

/** Runs `check`; resolves to the exit code. */
export async function check(args: Args, output: Output): Promise<number> {
  // A golden manifest that cannot be trusted is a usage error (exit 2),
  // found before any work; with --update it is only read to keep the views
  // --scope leaves out.
  const golden = await goldenToRead(args);
  const config = await loadConfig(args.configs[0], {
    timeoutMs: args.timeoutMs,
  });
  try {
    const contract = args.golden !== undefined || args.shares !== undefined;
    const count = args.maxTokens === undefined && !contract
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
    let written: string | undefined;
    // A view that fails to assemble, or assembles differently each time, is
    // a finding already: the contract needs every view, steady (and
    // --update never writes a manifest of such a config).
    const assembled = !findings.some((finding) =>
      finding.kind === "error" || finding.kind === "nondeterministic"
    );
    if (args.golden !== undefined && assembled) {
      output.progress(`check: golden manifest ${args.golden}`);
      const outcome = await checkGolden(args.golden, {
        views: await goldenViews(config, all),
        golden,
        update: args.update === true,
        only: args.scopes !== undefined && args.scopes.length > 0
          ? args.scopes
          : undefined,
        countTokens: count!,
      });
      if (outcome.written) {
        written = `golden manifest ${args.golden} written (${outcome.views} ` +
          `view${outcome.views === 1 ? "" : "s"})`;
      }
      for (const difference of outcome.differences) {
        findings.push({
          scope: difference.scope,
          kind: "golden",
          message: difference.message,
          ...(difference.entry === undefined ? {} : {
            entry: difference.entry,
            contributor: difference.contributor,
          }),
          change: difference.change,
          rewriteTokens: difference.rewriteTokens,
          ...(difference.inline === true ? { inline: true } : {}),
        });
      }
    }
    let shares: SharesOutcome | undefined;
    if (args.shares !== undefined && assembled) {
      output.progress(`check: --shares ${args.shares.join(" ")}`);
      shares = await checkShares(config, {
        shares: args.shares,
        provider: args.provider,
        countTokens: count!,
      });
      if (sharesNothing(shares)) {
        findings.push({
          scope: shares.child,
          kind: "shares",
          message: `${sharesLine(shares)}: it shares nothing`,
        });
      }
    }
    output.done();
    const failing = findings.filter((finding) => fails(finding, args));
    report(output, args, {
      views,
      findings,
      ok: failing.length === 0,
      contract: { golden: args.golden, written, shares },
    });
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

/**
 * The golden manifest to compare with: read and checked, or, with
 * `--update`, read only when `--scope` needs the views it leaves out (and
 * then a file that does not exist yet is no error).
 */
async function goldenToRead(
  args: Args,
): Promise<GoldenManifest | undefined> {
  if (args.golden === undefined) return undefined;
  if (args.update !== true) return await readGolden(args.golden);
  if (args.scopes === undefined || args.scopes.length === 0) return undefined;
  try {
    return await readGolden(args.golden);
  } catch (error) {
    if (error instanceof CliError && / not found; /.test(error.message)) {
      return undefined;
    }
    throw new CliError(
      `${error instanceof Error ? error.message : String(error)}; with ` +
        `--scope, --update keeps the other views from it: run --update ` +
        `without --scope to write it whole`,
    );
  }
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

/** What `--golden` and `--shares` add to the report. */
interface ContractReport {
  golden: string | undefined;
  /** The line saying the manifest was written, with `--update`. */
  written: string | undefined;
  shares: SharesOutcome | undefined;
}

function report(
  output: Output,
  args: Args,
  result: {
    views: Checked[];
    findings: Finding[];
    ok: boolean;
    contract: ContractReport;
  },
): void {
  const { views, findings, ok, contract } = result;
  if (args.json) {
    output.line(JSON.stringify(
      {
        ok,
        views,
        findings,
        ...(contract.golden === undefined ? {} : {
          golden: {
            file: contract.golden,
            written: contract.written !== undefined,
          },
        }),
        ...(contract.shares === undefined ? {} : { shares: contract.shares }),
      },
      null,
      2,
    ));
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
      : kind === "golden"
      ? red("golden")
      : kind === "shares"
      ? red("shares")
      : yellow("non-deterministic");
    output.line(`${label}: ${message}`);
  }
  if (contract.shares !== undefined && !sharesNothing(contract.shares)) {
    output.line(`shares: ${sharesLine(contract.shares)}`);
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
        : `; ${warnings} cache warning${warnings === 1 ? "" : "s"}`) +
      (contract.written !== undefined
        ? `; ${contract.written}`
        : contract.golden !== undefined
        ? `; golden manifest ${contract.golden} holds`
        : ""),
  );
}
