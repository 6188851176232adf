/**
 * Stability (SPEC §8.1): how long an entry's bytes stay the same. A
 * registration's own stability is read here (explicit, or its layer's or
 * its Observable source's default), and the assembly's effective stability
 * is settled here after the waterfall: a section is as volatile as the most
 * volatile of its own stability and the variables its text references.
 *
 * Pure: no state (a build's variable stabilities reach the end of its
 * assembly through the build's notes), no RxJS.
 *
 * @module
 */

import { quote, readGuarded, SystemPromptError } from "../errors.ts";
import type { SystemPromptErrorCode } from "../errors.ts";
import { TextMap } from "../shared/text_map.ts";
import { compareCodeUnits } from "../shared/util.ts";
import {
  rankOf,
  STABILITIES,
  type StabilityRank,
} from "../shared/stability.ts";
import { cachedTemplateOf } from "../render/template_cache.ts";
import { parseTemplate } from "../render/template.ts";
import type { AssembledSection, PromptAssembly, Stability } from "../types.ts";

export { rankOf, STABILITIES, type StabilityRank };

/** Why a registration has its own stability (for `explain`). */
export type OwnStabilityReason = "own" | "layer default" | "Observable source";

/** A registration's own stability and why. */
export interface OwnStability {
  readonly stability: Stability;
  readonly reason: OwnStabilityReason;
}

const OWN_STABLE: OwnStability = { stability: "stable", reason: "own" };
const OWN_AGENT: OwnStability = { stability: "agent", reason: "own" };
const OWN_VOLATILE: OwnStability = { stability: "volatile", reason: "own" };
const LAYER_STABLE: OwnStability = {
  stability: "stable",
  reason: "layer default",
};
const LAYER_AGENT: OwnStability = {
  stability: "agent",
  reason: "layer default",
};
const OBSERVABLE: OwnStability = {
  stability: "volatile",
  reason: "Observable source",
};

/** What {@linkcode ownStability} needs besides the value. */
export interface OwnStabilityOptions {
  /** The input is an Observable source. */
  readonly live: boolean;
  /** The registrar writes to a scope layer. */
  readonly scoped: boolean | undefined;
  /** The error code for a value that is not a stability. */
  readonly code: SystemPromptErrorCode;
  /** Names the registration and its registrar, e.g. `section "a" of …`. */
  readonly what: () => string;
}

/**
 * A registration's own stability: `value` when given (one of the three, or
 * `code` naming `what`), else the default: volatile for an Observable
 * source, agent in a scope layer, stable in the global layer.
 */
export function ownStability(
  value: unknown,
  { live, scoped, code, what }: OwnStabilityOptions,
): OwnStability {
  switch (value) {
    case undefined:
      return live ? OBSERVABLE : scoped === true ? LAYER_AGENT : LAYER_STABLE;
    case "stable":
      return OWN_STABLE;
    case "agent":
      return OWN_AGENT;
    case "volatile":
      return OWN_VOLATILE;
  }
  throw new SystemPromptError(
    code,
    `The ${what()} has stability ${quote(value)}; stability must be ` +
      `"stable", "agent" or "volatile", or left out (the layer's default).`,
  );
}

/**
 * The `stability` of the last, optional `{ stability }` argument of
 * `variable()`, read once; `INVALID_CONFIG` naming `what` (`tools()` reads
 * its options with `readToolsOptions`).
 */
export function readStabilityOption(
  options: unknown,
  what: () => string,
): unknown {
  if (options === undefined) return undefined;
  if (typeof options !== "object" || options === null) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `The options of the ${what()} must be an object { stability? }; got ` +
        `${quote(options)}.`,
    );
  }
  return readGuarded(
    () => (options as { stability?: unknown }).stability,
    "INVALID_CONFIG",
    () =>
      `Reading the options of the ${what()} threw; they are an object ` +
      `{ stability? } whose field can be read.`,
  );
}

/**
 * The visible variables that are not stable, as a build of one list of
 * variable records sees them: shared by every assembly of that list.
 */
export interface VariableStabilities {
  /** Each non-stable variable's rank, by name. */
  readonly ranks: ReadonlyMap<string, StabilityRank>;
  /** The most volatile of `ranks`. */
  readonly max: StabilityRank;
  /** Each text's {@linkcode referenceRank}, remembered. */
  readonly memo: TextMap<StabilityRank>;
}

/** `ranks` as {@linkcode VariableStabilities}, or `undefined` when empty. */
export function variableStabilities(
  ranks: ReadonlyMap<string, StabilityRank>,
): VariableStabilities | undefined {
  if (ranks.size === 0) return undefined;
  let max: StabilityRank = 0;
  for (const rank of ranks.values()) if (rank > max) max = rank;
  return { ranks, max, memo: new TextMap() };
}

/**
 * The static texts a build rendered and the ranks of the variables they
 * reference, by index: after the waterfall, a section still holding its
 * text at its index needs no lookup.
 */
export interface BuiltTexts {
  /** The array of sections the build wrote. */
  readonly sections: readonly AssembledSection[];
  /** The texts by index (a function or source: resolved per assembly). */
  readonly texts: readonly unknown[];
  /** The most volatile rank each static text references, by index. */
  readonly ranks: Uint8Array;
  /** The sections' names by index: a section a listener moved is found. */
  readonly names: readonly string[];
  /** Each registration's own stability by index (`undefined`: stable). */
  readonly own: readonly BuiltStability[] | undefined;
  /**
   * The stability the build wrote on each section, by index: its own,
   * raised by what its text referenced (`undefined`: stable).
   */
  readonly written: readonly BuiltStability[] | undefined;
}

/** A stability as a built section carries it (`undefined`: stable). */
export type BuiltStability = "agent" | "volatile" | undefined;

/** Options of {@linkcode settleStability}. */
export interface SettleStabilityOptions {
  /** The non-stable variables of the build. */
  readonly variables?: VariableStabilities;
  /** The build's static texts and their ranks. */
  readonly built?: BuiltTexts;
}

/**
 * The assembly with its effective stability settled, after the waterfall:
 * each section as volatile as the most volatile of its own `stability` and
 * the variables its text references; `stability` keys only where not
 * stable; `toolStability` with code-unit ordered keys of listed tools that
 * are not stable, absent when none. Never mutates its input: what changes
 * is copied (an unchanged assembly is returned as is).
 *
 * @throws {SystemPromptError} `INVALID_LISTENER_RESULT` when a listener left
 * a stability that is not `"stable"`, `"agent"` or `"volatile"`.
 */
export function settleStability(
  assembly: PromptAssembly,
  options: SettleStabilityOptions = {},
): PromptAssembly {
  const { variables, built } = options;
  const maxVariable = variables === undefined ? 0 : variables.max;
  const builtTexts = built?.texts;
  const sections = assembly.sections;
  const length = sections.length;
  let settled: AssembledSection[] | undefined;
  let byName: Map<string, number> | undefined;
  for (let index = 0; index < length; index++) {
    const section = sections[index];
    // What is not a section fails at render, naming it.
    if (typeof section !== "object" || section === null) continue;
    const own = section.stability;
    let from: unknown = own;
    // Without a stability key the section is stable by its own account, and
    // so was its registration whenever the build wrote no key either.
    if (built !== undefined && own !== undefined) {
      // A stability the listeners left as the build wrote it was derived
      // from the text then: settle from the registration's own instead.
      let at = built.names[index] === section.name ? index : -1;
      if (at === -1) {
        byName ??= new Map(built.names.map((name, i) => [name, i]));
        at = byName.get(section.name) ?? -1;
      }
      if (at !== -1 && own === built.written?.[at]) from = built.own?.[at];
    }
    let rank: number = 0;
    if (from !== undefined) {
      rank = rankOf(from);
      if (rank === -1) throw invalidSection(section, own);
    } else if (maxVariable === 0) continue;
    if (rank < maxVariable) {
      const text = section.text;
      const referenced = builtTexts !== undefined && text === builtTexts[index]
        ? built!.ranks[index]
        : referenceRank(text, variables!);
      if (referenced > rank) rank = referenced;
    }
    if (rank === 0 ? own === undefined : own === STABILITIES[rank]) continue;
    settled ??= sections.slice();
    const copy = { ...section } as AssembledSection;
    if (rank === 0) delete copy.stability;
    else copy.stability = STABILITIES[rank] as "agent" | "volatile";
    settled[index] = copy;
  }
  const tools = settleToolStability(assembly);
  if (settled === undefined && tools === assembly.toolStability) {
    return assembly;
  }
  const result = { ...assembly };
  if (settled !== undefined) result.sections = settled;
  if (tools === undefined) delete result.toolStability;
  else result.toolStability = tools;
  return result;
}

/**
 * The most volatile rank among the variables `text` references (0 when
 * none, or for a text that is not a string), remembered per text: an
 * unchanged registry asks about the same texts step after step, and a
 * lookup is cheaper than reading the template.
 */
export function referenceRank(
  text: unknown,
  variables: VariableStabilities,
): StabilityRank {
  if (typeof text !== "string") return 0;
  const memo = variables.memo;
  let rank = memo.get(text);
  if (rank !== undefined) return rank;
  const reference = mostVolatileReference(text, variables.ranks, 0);
  rank = reference === undefined ? 0 : variables.ranks.get(reference)!;
  // Function texts that change every step must not grow the memo while
  // the variables stay the same.
  if (memo.size >= REFERENCE_MEMO_SIZE) memo.clear();
  memo.set(text, rank);
  return rank;
}

const REFERENCE_MEMO_SIZE = 4096;

const NO_REFERENCES: { readonly names: readonly string[] } = { names: [] };

/**
 * The first variable of the most volatile rank above `floor` that `text`
 * references, or `undefined` (also for a text that is not a string).
 */
export function mostVolatileReference(
  text: unknown,
  variables: ReadonlyMap<string, StabilityRank>,
  floor: number,
): string | undefined {
  // A text that is not a string fails at render, naming the section.
  if (typeof text !== "string") return undefined;
  const { names } = cachedTemplateOf(text) ??
    (text.includes("{{") ? parseTemplate(text) : NO_REFERENCES);
  let best: string | undefined;
  let bestRank = floor;
  for (const name of names) {
    const rank = variables.get(name);
    if (rank !== undefined && rank > bestRank) {
      best = name;
      bestRank = rank;
    }
  }
  return best;
}

/**
 * `assembly.toolStability` normalised: the same object when it already is
 * (keys of listed or deferred tools, in code-unit order, valid, none
 * stable), a new one otherwise, `undefined` when no tool is left that is
 * not stable.
 */
function settleToolStability(
  assembly: PromptAssembly,
): PromptAssembly["toolStability"] {
  const given: unknown = assembly.toolStability;
  if (given === undefined) return undefined;
  if (typeof given !== "object" || given === null) {
    throw new SystemPromptError(
      "INVALID_LISTENER_RESULT",
      `The assembly's toolStability is ${quote(given)}; it must be an ` +
        `object mapping tool names to "agent" or "volatile" (or be left ` +
        `out) when the listeners are done.`,
    );
  }
  const listed = new Set<string>();
  for (const tool of assembly.tools) listed.add(tool.name);
  for (const tool of assembly.deferredTools ?? []) listed.add(tool.name);
  const keys = Object.keys(given);
  const kept: string[] = [];
  let normal = true;
  let previous: string | undefined;
  for (const key of keys) {
    const value = (given as Record<string, unknown>)[key];
    const rank = rankOf(value);
    if (rank === -1) {
      throw new SystemPromptError(
        "INVALID_LISTENER_RESULT",
        `The assembly's toolStability gives tool ${quote(key)} stability ` +
          `${quote(value)}; a tool's stability is "agent" or "volatile" ` +
          `(leave a stable tool out).`,
      );
    }
    if (rank === 0 || !listed.has(key)) {
      normal = false;
      continue;
    }
    if (previous !== undefined && compareCodeUnits(previous, key) >= 0) {
      normal = false;
    }
    previous = key;
    kept.push(key);
  }
  if (normal && kept.length !== 0) {
    return given as PromptAssembly["toolStability"];
  }
  if (kept.length === 0) return undefined;
  return toolStabilityOf(
    kept.sort(compareCodeUnits).map((key) => [
      key,
      (given as Record<string, "agent" | "volatile">)[key],
    ]),
  );
}

/**
 * A `toolStability` object of `entries` (already in code-unit order), each
 * an own key, even `__proto__`.
 */
export function toolStabilityOf(
  entries: readonly (readonly [string, "agent" | "volatile"])[],
): Record<string, "agent" | "volatile"> {
  const result: Record<string, "agent" | "volatile"> = {};
  for (const [name, stability] of entries) {
    // A define, not an assignment: `__proto__` must stay an own key.
    Object.defineProperty(result, name, {
      value: stability,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return result;
}

function invalidSection(
  section: AssembledSection,
  value: unknown,
): SystemPromptError {
  return new SystemPromptError(
    "INVALID_LISTENER_RESULT",
    `Section ${quote(section.name)} has stability ${quote(value)} when the ` +
      `listeners are done; an assembled section's stability is "agent" or ` +
      `"volatile", or left out (stable).`,
  );
}
