/**
 * Gemini's explicit cache for a conversation (SPEC 10.5): one
 * `cachedContents` entry holding the system instruction and the tools,
 * created once they reach the minimum, named by each request while it
 * lives, renewed when less than half its lifetime is left, replaced when
 * the prefix changes (the old one deleted once the step naming the new one
 * is recorded), deleted by `dispose()`. A request that names it
 * carries neither (Gemini takes them from the entry); the gates are then
 * the conversation's refusals, as on Bedrock. The entry in use is the
 * form's state, kept in the recording; the ledger (one per conversation
 * and its forks) knows what this process created, renewed and deleted.
 *
 * @module
 */

import { SystemPromptError } from "../../mod.ts";
import { quote } from "../../src/errors.ts";
import { sha256Hex } from "../../src/shared/sha256.ts";
import type { FormHead } from "../../src/conversation/form.ts";
import type { CacheStorageReport } from "../../src/cache/report/conversation_findings.ts";
import { isObject } from "../_kit/form_options.ts";
import { GEMINI_RULES } from "./rules.ts";
import type {
  GeminiCacheEntry,
  GeminiCacheReport,
  GeminiCaches,
} from "./conversation_types.ts";

/** An entry as the state keeps it: which prefix it holds, by digest. */
export interface KeptEntry extends GeminiCacheEntry {
  /** The digest of the model, system instruction and tools it holds. */
  readonly key: string;
}

/**
 * The entries of a conversation and its forks, by name, and the deletions
 * a recorded step started.
 */
export class CacheLedger {
  readonly entries: Map<string, KeptEntry> = new Map();
  #deleting: Promise<void>[] = [];
  #failures: unknown[] = [];

  /** The entries of a recording's states (a resumed conversation's). */
  seed(recording: string): void {
    const steps: { state: Record<string, unknown>; time: string }[] = [];
    for (const line of recording.split("\n")) {
      // A line whose state names an entry or none; others keep the last.
      if (!line.includes('"cachedContent"') && !line.includes('"state":{}')) {
        continue;
      }
      try {
        const step = JSON.parse(line);
        if (isObject(step?.state)) steps.push(step);
      } catch {
        // A line the recording's reader refuses is reported there.
      }
    }
    for (const [name, entry] of entriesOf(steps)) this.entries.set(name, entry);
  }

  /**
   * A step recorded at `now`: the entry the conversation named before it,
   * when the step names another (or none) and it still lives, is deleted.
   * The deletion runs on; the next `settled()` waits for it.
   */
  recorded(
    before: Readonly<Record<string, unknown>>,
    after: Readonly<Record<string, unknown>>,
    { now, caches }: {
      readonly now: number;
      readonly caches: GeminiCaches | undefined;
    },
  ): void {
    const named = entryIn(before);
    if (named === undefined || named.name === entryIn(after)?.name) return;
    const entry = this.entries.get(named.name) ?? named;
    if (entry.deletedAt !== undefined || now >= entry.expiresAt) return;
    this.entries.set(entry.name, { ...entry, deletedAt: now });
    const deletion = Promise.resolve().then(() => {
      if (caches === undefined) throw missingCaches();
      return caches.delete({ name: entry.name });
    });
    this.#deleting.push(deletion.then(() => undefined, (error) => {
      // Not deleted: it stays live (dispose() tries again).
      const { deletedAt: _, ...live } = this.entries.get(entry.name) ?? entry;
      this.entries.set(entry.name, live);
      this.#failures.push(error);
    }));
  }

  /**
   * Waits for the deletions recorded steps started; throws the first that
   * failed (once).
   */
  async settled(): Promise<void> {
    await Promise.all(this.#deleting.splice(0));
    const failure = this.#failures.splice(0);
    if (failure.length > 0) throw failure[0];
  }

  /** Deletes every entry not deleted yet and not expired, at `now()`. */
  async dispose(
    caches: GeminiCaches | undefined,
    now: () => number,
  ): Promise<void> {
    // An entry a failed deletion left is tried again below.
    await Promise.all(this.#deleting.splice(0));
    this.#failures = [];
    const at = now();
    const live = [...this.entries.values()].filter((entry) =>
      entry.deletedAt === undefined && at < entry.expiresAt
    );
    if (live.length > 0 && caches === undefined) throw missingCaches();
    for (const entry of live) {
      await caches!.delete({ name: entry.name });
      entry.deletedAt = now();
    }
  }

  /** The report's figures: each entry stored until deleted or expired. */
  figures(
    storagePrice: number,
  ): NonNullable<GeminiCacheReport["cachedContents"]> {
    const entries = [...this.entries.values()].map(({ key: _key, ...entry }) =>
      entry
    );
    let writtenTokens = 0;
    let tokenHours = 0;
    for (const entry of entries) {
      writtenTokens += entry.tokens;
      const end = Math.min(entry.deletedAt ?? Infinity, entry.expiresAt);
      tokenHours += entry.tokens * Math.max(0, end - entry.createdAt) /
        3_600_000;
    }
    return {
      entries,
      writtenTokens,
      tokenHours,
      storageCost: tokenHours * storagePrice,
    };
  }
}

/**
 * The entries recorded states name, in order. An entry a later step
 * replaced (that step named another entry, or none) was deleted when that
 * step was recorded (its `time`), as `CacheLedger.recorded` deletes it,
 * unless it had expired by then.
 */
function entriesOf(
  steps: Iterable<{
    readonly state?: Readonly<Record<string, unknown>>;
    readonly time: string;
  }>,
): Map<string, KeptEntry> {
  const entries = new Map<string, KeptEntry>();
  let last: KeptEntry | undefined;
  for (const step of steps) {
    if (step.state === undefined) continue;
    const named = entryIn(step.state);
    if (last !== undefined && last.name !== named?.name) {
      const at = Date.parse(step.time);
      const replaced = entries.get(last.name) ?? last;
      if (at < replaced.expiresAt && replaced.deletedAt === undefined) {
        entries.set(last.name, { ...replaced, deletedAt: at });
      }
    }
    if (named !== undefined) entries.set(named.name, { ...named });
    last = named;
  }
  return entries;
}

/**
 * What the entries a recording's states name stored (the form's
 * `storage`): each from its creation until the step that named another
 * entry or none was recorded, or its expiry if sooner; the last until it
 * expires (the recording does not say when `dispose()` deleted it).
 * `undefined` without the `cachedContents` option or an entry.
 */
export function recordedStorage(
  steps: readonly {
    readonly state?: Readonly<Record<string, unknown>>;
    readonly time: string;
  }[],
  options: Readonly<Record<string, unknown>>,
): CacheStorageReport | undefined {
  const settings = readCachedContents(options.cachedContents);
  if (settings === undefined) return undefined;
  const ledger = new CacheLedger();
  for (const [name, entry] of entriesOf(steps)) {
    ledger.entries.set(name, entry);
  }
  if (ledger.entries.size === 0) return undefined;
  return storageOf(ledger.figures(settings.storagePrice));
}

/** The report's storage figures of an entries' report. */
export function storageOf(
  figures: NonNullable<GeminiCacheReport["cachedContents"]>,
): CacheStorageReport {
  const { entries, writtenTokens, tokenHours, storageCost } = figures;
  return { entries: entries.length, writtenTokens, tokenHours, storageCost };
}

/** The entry a state names. */
function entryIn(
  state: Readonly<Record<string, unknown>>,
): KeptEntry | undefined {
  const entry = state.cachedContent;
  return isEntry(entry) ? entry : undefined;
}

function isEntry(value: unknown): value is KeptEntry {
  return isObject(value) && typeof value.name === "string" &&
    typeof value.key === "string" && typeof value.tokens === "number" &&
    typeof value.createdAt === "number" && typeof value.expiresAt === "number";
}

function missingCaches(): SystemPromptError {
  return new SystemPromptError(
    "INVALID_CONFIG",
    `geminiConversation's cachedContents has no caches; give it ai.caches ` +
      `(a resume too: { cachedContents: { caches: ai.caches } }), the ` +
      `client that creates, renews and deletes the entry.`,
  );
}

/** The `cachedContents` option read and checked. */
export interface CachedContentsSettings {
  readonly caches: GeminiCaches | undefined;
  readonly ttlSeconds: number;
  readonly minTokens: number;
  readonly storagePrice: number;
}

/** The option, checked (`undefined` when absent). */
export function readCachedContents(
  value: unknown,
): CachedContentsSettings | undefined {
  if (value === undefined) return undefined;
  const where = "geminiConversation's cachedContents";
  if (!isObject(value)) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `${where} is ${quote(value)}; it must be an object { caches, ` +
        `ttlSeconds?, minTokens?, storagePrice? }.`,
    );
  }
  const number = (name: string, fallback: number, integer: boolean) => {
    const given = value[name];
    if (given === undefined) return fallback;
    if (
      typeof given !== "number" || !(given > 0) || !Number.isFinite(given) ||
      (integer && !Number.isInteger(given))
    ) {
      throw new SystemPromptError(
        "INVALID_CONFIG",
        `${where}.${name} is ${quote(given)}; it must be a positive ` +
          `${integer ? "integer" : "number"}.`,
      );
    }
    return given;
  };
  const caches = value.caches;
  if (
    caches !== undefined &&
    (!isObject(caches) || typeof caches.create !== "function" ||
      typeof caches.update !== "function" ||
      typeof caches.delete !== "function")
  ) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `${where}.caches is not ai.caches (an object with create, update ` +
        `and delete).`,
    );
  }
  return {
    caches: caches as GeminiCaches | undefined,
    ttlSeconds: number("ttlSeconds", 3600, true),
    minTokens: number("minTokens", GEMINI_RULES.minPrefixTokens, true),
    storagePrice: number("storagePrice", 2, false),
  };
}

/** The options a recording keeps of the setting (no client). */
export function savedCachedContents(
  settings: CachedContentsSettings,
): Record<string, number> {
  return {
    ttlSeconds: settings.ttlSeconds,
    minTokens: settings.minTokens,
    storagePrice: settings.storagePrice,
  };
}

/**
 * The head with the entry its prefix is in (created, renewed or replaced
 * first), or as built when the prefix is below the minimum.
 */
export async function settleCachedContent(
  head: FormHead,
  now: number,
  { settings, ledger }: {
    readonly settings: CachedContentsSettings;
    readonly ledger: CacheLedger;
  },
): Promise<FormHead> {
  const { model, config } = head.recorded as {
    model: string;
    config: Record<string, unknown>;
  };
  const { systemInstruction, tools, toolConfig: _gates, ...rest } = config;
  const prefix = {
    ...(systemInstruction === undefined ? {} : { systemInstruction }),
    ...(tools === undefined ? {} : { tools }),
  };
  const json = JSON.stringify(prefix);
  const key = sha256Hex(JSON.stringify(model) + json).slice(0, 16);
  const ttl = settings.ttlSeconds * 1000;
  const alive = (entry: KeptEntry | undefined) =>
    entry !== undefined && entry.deletedAt === undefined &&
    now < entry.expiresAt;
  await ledger.settled();
  const kept = entryIn(head.state);
  // An entry the prefix no longer matches is kept until the step naming
  // another in its place is recorded (`CacheLedger.recorded`): deleted
  // here, a request built and never recorded (the process dies before its
  // answer) would leave the recording naming an entry that is gone, and a
  // resume could neither name nor delete it. It costs the entry's storage
  // for one answer's time; the new entry of a request never recorded is
  // left to expire (no recording names it).
  let entry = kept === undefined
    ? undefined
    : ledger.entries.get(kept.name) ?? kept;
  if (entry === undefined || entry.key !== key || !alive(entry)) {
    entry = [...ledger.entries.values()].find((known) =>
      known.key === key && alive(known)
    );
  }
  const tokens = Math.ceil(json.length / 4);
  if (entry === undefined && tokens >= settings.minTokens) {
    const created = await client(settings).create({
      model,
      config: { ...prefix, ttl: `${settings.ttlSeconds}s` } as never,
    });
    if (typeof created?.name !== "string") {
      throw new SystemPromptError(
        "INVALID_RESPONSE",
        `ai.caches.create() answered without a name; the conversation ` +
          `names the entry it created in its requests.`,
      );
    }
    const counted = created.usageMetadata?.totalTokenCount;
    entry = {
      name: created.name,
      key,
      tokens: typeof counted === "number" ? counted : tokens,
      createdAt: now,
      expiresAt: now + ttl,
    };
  } else if (entry !== undefined && entry.expiresAt - now < ttl / 2) {
    await client(settings).update({
      name: entry.name,
      config: { ttl: `${settings.ttlSeconds}s` },
    });
    entry = { ...entry, expiresAt: now + ttl };
  }
  if (entry === undefined) return { ...head, state: {} };
  ledger.entries.set(entry.name, entry);
  return {
    ...head,
    recorded: { model, config: { cachedContent: entry.name, ...rest } },
    state: { cachedContent: { ...entry } },
  };
}

function client(settings: CachedContentsSettings): GeminiCaches {
  if (settings.caches === undefined) throw missingCaches();
  return settings.caches;
}
