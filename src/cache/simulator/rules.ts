/**
 * A provider's caching facts as one object (SPEC 8.8, 10.5): what the
 * simulator, the verdicts, the report, `sharedPrefix`, the adapters and
 * the conversation's mark policy read of a provider, so that a provider is
 * a rules object and not a branch in each of them. The interface names no
 * provider; the rows live with each provider's adapter.
 *
 * @module
 */

import type { Block, Marker, ParsedBody } from "./blocks.ts";

/**
 * What a provider's marks are: where they go, how many, and what a read at
 * one looks at. Absent on a provider whose cache reads no marks (an
 * automatic prefix cache).
 */
export interface MarkRules {
  /** The mark as the API spells it, for messages (`cache_control`). */
  readonly name: string;
  /** Where the API wants longer lifetimes first, for messages. */
  readonly order: string;
  /** Marks a request may carry before the API refuses it; absent: no limit. */
  readonly limit?: number;
  /** Marks an adapter places on tools and system by default, and at most. */
  readonly prefix: { readonly default: number; readonly max: number };
  /** Tools may carry a mark. */
  readonly onTools: boolean;
  /**
   * Blocks before a mark that a read at it also checks; 0: a request reads
   * at its own marks only.
   */
  readonly lookbackBlocks: number;
  /**
   * What the minimum applies to: the whole prefix through a mark, or each
   * mark's own tokens since the previous mark that was written.
   */
  readonly minimumOf: "prefix" | "checkpoint";
  /** The lifetimes a mark may ask for, shortest first. */
  readonly ttls: readonly Marker[];
  /** Lifetimes may not increase along the prefix (tools, system, messages). */
  readonly ttlsNonIncreasing: boolean;
  /** The lifetime of every mark of a request after which a person answers. */
  readonly personTtl: string;
  /**
   * A cache that reads at its latest marks and also as the automatic rule:
   * the marks read, and those written (in each mode of the body).
   */
  readonly explicit?: {
    readonly read: number;
    readonly write: number;
    readonly writeExplicitMode: number;
  };
}

/** An automatic prefix cache's facts. */
export interface AutomaticRules {
  /** What is served is rounded down to a multiple of this, in tokens. */
  readonly stepTokens: number;
  /** How long an entry lives after its last use, in ms (assumed). */
  readonly ttlMs: number;
  /** Longer lifetimes a body may ask for (`prompt_cache_retention`), in ms. */
  readonly retention: Readonly<Record<string, number>>;
}

/**
 * Where a reading of a body's items stands before the next: leading system
 * items are system blocks, numbered on.
 */
export interface ItemState {
  readonly leading: boolean;
  readonly systemIndex: number;
}

/** How the items of one body (its `messages` or `input`) are read. */
export interface ItemReader {
  /** Equal keys: items are read the same way. */
  readonly key: string;
  /**
   * Reads item `index` into `into`, its blocks as the whole body's reading
   * reads them; the state the next item is read in.
   *
   * @throws {SystemPromptError} `INVALID_CONFIG` for an item of another shape
   */
  read(
    item: unknown,
    index: number,
    state: ItemState,
    into: Block[],
  ): ItemState;
}

/** One provider's rules (and its variant's: OpenAI's explicit marks). */
export interface ProviderRules {
  /** The rules' id, as `simulateCache`'s `provider` names it. */
  readonly id: string;
  /**
   * How a request reads: at its marks (within the lookback), the longest
   * common prefix (automatic), or the larger of both.
   */
  readonly reads: "marks" | "automatic" | "marks-and-automatic";
  /** The marks, when the cache reads them. */
  readonly marks?: MarkRules;
  /** The automatic cache, where the provider has one. */
  readonly automatic?: AutomaticRules;
  /** The shortest prefix cached by default, in tokens. */
  readonly minPrefixTokens: number;
  /** A cache read's price, as a share of an uncached input token's. */
  readonly readPrice: number;
  /** Writes are billed as plain input (an automatic cache bills none). */
  readonly writesBilledAsInput?: boolean;
  /**
   * A body as blocks, in prefix order.
   *
   * @throws {SystemPromptError} `INVALID_CONFIG` for a body of another shape
   */
  readBody(body: unknown): ParsedBody;
  /**
   * How a body with these fields reads its items `name` one by one (a
   * session's growing bodies); absent: only whole bodies are read.
   */
  readItems?(
    fields: Readonly<Record<string, unknown>>,
    name: string,
  ): ItemReader;
  /** Whether a body of unknown provider (the bound's) reads with these rules. */
  claimsBody(body: Record<string, unknown>): boolean;
  /**
   * `claimsBody` takes any body: these rules are tried last (a fallback
   * for the bound).
   */
  readonly claimsAnyBody?: boolean;
}

/**
 * Every provider's rules, as the package's form table gives them to the
 * functions that take a provider's id.
 */
export interface RuleTable {
  /** The rules of `id`, or `undefined` for another value. */
  named(id: unknown): ProviderRules | undefined;
  /** Every id, in the order reports list them. */
  readonly ids: readonly string[];
  /**
   * The rules a body of unknown provider (the bound's) is read with: the
   * first that claims it, the most particular first.
   */
  readonly bodyOrder: readonly ProviderRules[];
}

/** The lifetime `label` of `rules`' marks. */
export function markTtl(
  rules: Pick<ProviderRules, "marks">,
  label: string,
): Marker | undefined {
  return rules.marks?.ttls.find((ttl) => ttl.label === label);
}
