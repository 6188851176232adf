/**
 * What the rule-enforcing loopback servers share (`thinking_server.ts`,
 * `compaction_server.ts`): hashing, marks taken out of a value, token
 * counts, signatures only the server can make, and the two prefix caches
 * the providers run (Anthropic's at its marks, 20 blocks of lookback;
 * OpenAI's automatic longest prefix, in steps of 128 tokens). The caches
 * are the servers' own, written from the providers' documented rules, not
 * the library's simulator: the SDK tests compare the library against them.
 */

import { createHash, createHmac, randomBytes } from "node:crypto";

/** SHA-256 of `text`, hex. */
export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The servers' token count: a quarter of the characters, rounded up. */
export function tokensOf(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Whether `value` is a plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `value` with every `name` key removed at every depth (a cache mark:
 * `cache_control`, `prompt_cache_breakpoint`); the rest as it was, in its
 * key order.
 */
export function withoutKey(value: unknown, name: string): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutKey(item, name));
  if (!isRecord(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key !== name) copy[key] = withoutKey(item, name);
  }
  return copy;
}

/**
 * Signatures only this server makes: an HMAC under a secret drawn per
 * server, so a signature from another server (or edited) never verifies.
 */
export class Signer {
  readonly #secret = randomBytes(32);

  /** `payload` signed: the payload and its MAC, base64 of JSON. */
  sign(payload: Record<string, string>): string {
    const mac = this.#mac(payload);
    return btoa(JSON.stringify({ ...payload, mac }));
  }

  /** The payload of a signature this server made, or `undefined`. */
  open(signature: unknown): Record<string, string> | undefined {
    if (typeof signature !== "string") return undefined;
    let decoded: unknown;
    try {
      decoded = JSON.parse(atob(signature));
    } catch {
      return undefined;
    }
    if (!isRecord(decoded) || typeof decoded.mac !== "string") {
      return undefined;
    }
    const { mac, ...payload } = decoded as Record<string, string>;
    return this.#mac(payload) === mac ? payload : undefined;
  }

  #mac(payload: Record<string, string>): string {
    return createHmac("sha256", this.#secret)
      .update(JSON.stringify(Object.entries(payload).sort()))
      .digest("hex");
  }
}

/** One block of a rendered prompt: what it is, its tokens, its mark. */
export interface PromptUnit {
  /** The block's content as the model reads it (marks taken out). */
  readonly key: string;
  readonly tokens: number;
  /** Its cache mark's lifetime, when it carries one. */
  readonly mark?: "5m" | "1h";
}

/** What a prefix cache answered for one request. */
export interface CacheAnswer {
  /** Every input token of the request. */
  readonly total: number;
  /** Tokens read from the cache. */
  readonly read: number;
  /** Tokens written to the cache, by lifetime. */
  readonly written: { readonly "5m": number; readonly "1h": number };
}

/** Hash of each prefix of `units` (index n: the first n units). */
function prefixKeys(units: readonly PromptUnit[]): string[] {
  const keys = [sha256("")];
  for (const unit of units) keys.push(sha256(keys[keys.length - 1] + unit.key));
  return keys;
}

/**
 * Anthropic's prompt cache: a request reads, at each of its marks, the
 * longest prefix written earlier that ends at the mark or at most 20
 * blocks before it; each mark whose prefix holds at least `minimum` tokens writes its
 * prefix. Entries do not expire (the tests run in seconds).
 */
export class MarkedPrefixCache {
  readonly #written = new Set<string>();
  constructor(
    readonly minimum: number,
    readonly lookback = 20,
  ) {}

  /** Reads and writes the cache for one request's units. */
  answer(units: readonly PromptUnit[]): CacheAnswer {
    const keys = prefixKeys(units);
    const ends = [0];
    for (const unit of units) ends.push(ends[ends.length - 1] + unit.tokens);
    const marks = units.flatMap((unit, at) =>
      unit.mark === undefined ? [] : [{ count: at + 1, ttl: unit.mark }]
    );
    let read = 0;
    for (const { count } of marks) {
      const lowest = Math.max(1, count - this.lookback);
      for (let length = count; length >= lowest; length--) {
        if (this.#written.has(keys[length])) {
          read = Math.max(read, ends[length]);
          break;
        }
      }
    }
    const written = { "5m": 0, "1h": 0 };
    let end = read;
    for (const { count, ttl } of marks) {
      if (ends[count] < this.minimum) continue;
      this.#written.add(keys[count]);
      if (ends[count] > end) {
        written[ttl] += ends[count] - end;
        end = ends[count];
      }
    }
    return { total: ends[units.length], read, written };
  }
}

/**
 * OpenAI's automatic prompt cache: a request reads the longest prefix an
 * earlier request under the same `prompt_cache_key` sent, when it holds at
 * least `minimum` tokens, in whole steps of 128 tokens; every prefix it
 * sends is kept.
 */
export class AutomaticPrefixCache {
  readonly #sent = new Map<string, Set<string>>();
  constructor(readonly minimum: number, readonly step = 128) {}

  /** Reads and writes the cache for one request's units. */
  answer(units: readonly PromptUnit[], partition = ""): CacheAnswer {
    const keys = prefixKeys(units);
    let sent = this.#sent.get(partition);
    if (sent === undefined) this.#sent.set(partition, sent = new Set());
    let total = 0;
    let matched = 0;
    units.forEach((unit, index) => {
      total += unit.tokens;
      if (sent.has(keys[index + 1])) matched = total;
    });
    for (const key of keys.slice(1)) sent.add(key);
    const read = matched < this.minimum
      ? 0
      : Math.floor(matched / this.step) * this.step;
    return { total, read, written: { "5m": 0, "1h": 0 } };
  }
}

/** The `anthropic-beta` header's betas. */
export function betasOf(headers: Record<string, string>): Set<string> {
  return new Set(
    (headers["anthropic-beta"] ?? "").split(",").map((beta) => beta.trim())
      .filter((beta) => beta !== ""),
  );
}

/** An API refusal the server answers with (HTTP status and JSON body). */
export class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    message: string,
  ) {
    super(message);
  }
}
