/**
 * `rxprompt check --golden FILE [--update]` and `--shares PARENT CHILD`
 * (SPEC 9.5): the cache contract of a config. The golden manifest is read
 * whole and checked (a missing, truncated, edited or other-version file is
 * a `CliError`: one line, exit 2) and written to a temporary file in the
 * same folder, then renamed over FILE, so a reader never sees half of one.
 *
 * @module
 */

import { SystemPromptError } from "../mod.ts";
import {
  type CacheProvider,
  compareGoldenManifests,
  formatGoldenManifest,
  GOLDEN_MANIFEST_VERSION,
  type GoldenDifference,
  type GoldenManifest,
  goldenManifest,
  type GoldenView,
  parseGoldenManifest,
  type SharedPrefix,
  sharedPrefix,
} from "../adapters/cache/mod.ts";
import { PROVIDERS } from "./args.ts";
import { describeTarget, targetJson } from "./assembly.ts";
import { CliError, describeError } from "./cli_error.ts";
import { type PromptConfig, type Target, target } from "./config.ts";
import type { CountTokens } from "./tokens.ts";

/** The parts of `node:fs/promises` the manifest's file needs. */
interface Files {
  readFile(path: string, encoding: "utf8"): Promise<string>;
  writeFile(path: string, text: string, options: { flag: "wx" }): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  rm(path: string, options: { force: true }): Promise<void>;
}

/** `node:fs/promises`, under a computed specifier (see cli/node.ts). */
function files(): Promise<Files> {
  return import(["node", "fs/promises"].join(":")) as Promise<Files>;
}

/**
 * Reads and checks the golden manifest at `path`.
 *
 * @throws {CliError} naming the file and what is wrong with it
 */
export async function readGolden(path: string): Promise<GoldenManifest> {
  let text: string;
  try {
    text = await (await files()).readFile(path, "utf8");
  } catch (error) {
    const code = (error as { code?: unknown })?.code;
    throw new CliError(
      code === "ENOENT"
        ? `golden manifest ${path} not found; write it with rxprompt check ` +
          `CONFIG --golden ${path} --update`
        : `golden manifest ${path} could not be read: ${describeError(error)}`,
    );
  }
  try {
    return parseGoldenManifest(text);
  } catch (error) {
    if (error instanceof SystemPromptError) {
      throw new CliError(`golden manifest ${path}: ${describeError(error)}`);
    }
    throw error;
  }
}

/**
 * Writes `manifest` to `path`: to a new temporary file beside it, then
 * renamed over it (atomic on one file system). A failure removes the
 * temporary file and leaves `path` as it was.
 *
 * @throws {CliError} when the file cannot be written
 */
export async function writeGolden(
  path: string,
  manifest: GoldenManifest,
): Promise<void> {
  const fs = await files();
  const temporary = `${path}.${Date.now().toString(36)}${
    Math.random().toString(36).slice(2, 8)
  }.tmp`;
  try {
    await fs.writeFile(temporary, formatGoldenManifest(manifest), {
      flag: "wx",
    });
    await fs.rename(temporary, path);
  } catch (error) {
    await fs.rm(temporary, { force: true }).catch(() => {});
    throw new CliError(
      `golden manifest ${path} could not be written: ${describeError(error)}`,
    );
  }
}

/** The views' explanations, as `goldenManifest` takes them. */
export async function goldenViews(
  config: PromptConfig,
  targets: readonly Target[],
): Promise<GoldenView[]> {
  const views: GoldenView[] = [];
  for (const view of targets) {
    views.push({
      scope: targetJson(view),
      explanation: await config.prompt.explain(config.context(view.key)),
    });
  }
  return views;
}

/** The outcome of `--golden`: what differs, or that FILE was written. */
export interface GoldenOutcome {
  differences: GoldenDifference[];
  written: boolean;
  views: number;
}

/**
 * Compares the config's views with the golden manifest, or (`update`)
 * writes it: with `--scope`, the views not checked are kept from the file.
 */
export async function checkGolden(
  path: string,
  options: {
    views: readonly GoldenView[];
    golden: GoldenManifest | undefined;
    update: boolean;
    /** The `--scope` names, when given (only they are compared or written). */
    only: readonly string[] | undefined;
    countTokens: CountTokens;
  },
): Promise<GoldenOutcome> {
  const current = goldenManifest(options.views, {
    countTokens: options.countTokens,
  });
  const only = options.only;
  if (options.update) {
    let manifest = current;
    if (only !== undefined) {
      const kept = options.golden?.scopes.filter((scope) =>
        scope.scope === null || !only.includes(scope.scope)
      ) ?? [];
      // Rebuilt through goldenManifest's order: the global view, then names.
      const scopes = [...kept, ...current.scopes].sort((a, b) =>
        a.scope === b.scope
          ? 0
          : a.scope === null
          ? -1
          : b.scope === null
          ? 1
          : a.scope < b.scope
          ? -1
          : 1
      );
      // Deferred tools in a kept view or a new one make it version 2.
      manifest = {
        ...current,
        version: scopes.some((scope) =>
            scope.deferred !== undefined
          )
          ? GOLDEN_MANIFEST_VERSION
          : 1,
        scopes,
      };
    }
    await writeGolden(path, manifest);
    return { differences: [], written: true, views: manifest.scopes.length };
  }
  const differences = compareGoldenManifests(options.golden!, current, {
    ...(only === undefined ? {} : { scopes: only }),
  });
  return { differences, written: false, views: current.scopes.length };
}

/** `--shares PARENT CHILD` per provider. */
export interface SharesOutcome {
  parent: string;
  child: string;
  providers: Partial<Record<CacheProvider, SharedPrefix>>;
}

/** What scope CHILD's first request shares with scope PARENT's. */
export async function checkShares(
  config: PromptConfig,
  options: {
    shares: readonly [string, string];
    provider: CacheProvider | undefined;
    countTokens: CountTokens;
  },
): Promise<SharesOutcome> {
  const [parentName, childName] = options.shares;
  const [parent, child] = await goldenViews(config, [
    target(config, parentName),
    target(config, childName),
  ]);
  const providers: SharesOutcome["providers"] = {};
  for (
    const provider of options.provider === undefined
      ? PROVIDERS
      : [options.provider]
  ) {
    providers[provider] = sharedPrefix(parent.explanation, child.explanation, {
      provider,
      countTokens: options.countTokens,
    });
  }
  return { parent: parentName, child: childName, providers };
}

/** One line for `--shares`: the tokens per provider and the divergence. */
export function sharesLine(outcome: SharesOutcome): string {
  const parent = describeTarget({ name: outcome.parent, key: undefined });
  const child = describeTarget({ name: outcome.child, key: undefined });
  const results = Object.entries(outcome.providers) as [
    CacheProvider,
    SharedPrefix,
  ][];
  const figures = results.map(([provider, shared]) =>
    `${provider} ${shared.tokens} tokens` +
    (shared.tokens > 0
      ? ` (to ${shared.end})`
      : shared.identicalTokens > 0
      ? ` (${shared.identicalTokens} identical, too few to cache)`
      : "")
  );
  const divergence = results[0][1].divergence;
  const where = divergence === undefined
    ? "the two prompts are identical"
    : `they first differ at ${
      [
        divergence.child === undefined
          ? undefined
          : `${divergence.child.entry} of ${divergence.child.registrar} (${child})`,
        divergence.parent === undefined
          ? undefined
          : `${divergence.parent.entry} of ${divergence.parent.registrar} (${parent})`,
      ].filter((part) => part !== undefined).join(" / ")
    }`;
  return `${child}'s first request reads ${parent}'s cached prefix: ${
    figures.join(", ")
  }; ${where}`;
}

/** Whether the two scopes share nothing: a child that differs at byte 0. */
export function sharesNothing(outcome: SharesOutcome): boolean {
  return Object.values(outcome.providers).every((shared) =>
    shared.identicalTokens === 0
  );
}
