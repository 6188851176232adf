/**
 * Safe reading of provider payloads for each form's usage reader (in its
 * adapter folder): property reads that a getter or a Proxy cannot make
 * throw, counts checked, and what could not be read collected with the
 * value found; one response read into a `ReportedUsage` that never throws.
 *
 * @module
 */

import type { CacheLifetime, ReportedUsage } from "./usage_types.ts";

/** Collects what could not be read, and reads numbers safely. */
export class Reader {
  readonly malformed: { field: string; raw: unknown }[] = [];

  /** Records an unreadable field; its figure is undefined. */
  bad(field: string, raw: unknown): undefined {
    this.malformed.push({ field, raw });
    return undefined;
  }

  /** A required count: absent or not a count is malformed. */
  count(
    record: Record<string, unknown>,
    key: string,
    field: string,
  ): number | undefined {
    const raw = get(record, key);
    return isCount(raw) ? raw : this.bad(field, raw);
  }

  /**
   * A count the types mark optional or nullable: absent or null is 0
   * (nothing reported of it), anything but a count is malformed.
   */
  optionalCount(
    record: Record<string, unknown> | undefined,
    key: string,
    field: string,
  ): number | undefined {
    if (record === undefined) return 0;
    const raw = get(record, key);
    if (raw === undefined || raw === null) return 0;
    return isCount(raw) ? raw : this.bad(field, raw);
  }

  /** An optional object: absent or null is undefined, a non-object malformed. */
  object(
    record: Record<string, unknown>,
    key: string,
    field: string,
  ): Record<string, unknown> | undefined {
    const raw = get(record, key);
    if (raw === undefined || raw === null) return undefined;
    if (isRecord(raw)) return raw;
    this.bad(field, raw);
    return undefined;
  }
}

/** The response's usage object, or undefined (recorded) when it is not one. */
export function usageObject(
  response: Record<string, unknown>,
  key: string,
  reader: Reader,
): Record<string, unknown> | undefined {
  const usage = get(response, key);
  if (isRecord(usage)) return usage;
  reader.bad(key, usage);
  return undefined;
}

/** The lifetimes that have tokens. */
export function lifetimes(
  counts: Partial<Record<CacheLifetime, number>>,
): Partial<Record<CacheLifetime, number>> {
  const result: Partial<Record<CacheLifetime, number>> = {};
  for (const [lifetime, count] of Object.entries(counts)) {
    if (count !== undefined && count > 0) {
      result[lifetime as CacheLifetime] = count;
    }
  }
  return result;
}

/** Undefined or null. */
export function absent(value: unknown): boolean {
  return value === undefined || value === null;
}

/** A non-negative safe integer. */
export function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) &&
    value >= 0;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  try {
    return typeof value === "object" && value !== null &&
      !Array.isArray(value) && !(value instanceof Unreadable);
  } catch {
    return false; // a revoked Proxy
  }
}

/** What a property read that threw leaves in `malformed`: the error. */
class Unreadable {
  constructor(readonly error: unknown) {}
}

/** A property read that a getter or a Proxy cannot make throw. */
export function get(record: Record<string, unknown>, key: string): unknown {
  try {
    return record[key];
  } catch (error) {
    return new Unreadable(error);
  }
}

/**
 * A response read by `read` into the usage of form `source`: anything but
 * an object is a usage with no figures and `response` malformed; what
 * `read` could not read is listed in `malformed`. Never throws on what the
 * provider sent.
 */
export function readUsageWith(
  source: string,
  response: unknown,
  read: (response: Record<string, unknown>, reader: Reader) => ReportedUsage,
): ReportedUsage {
  const reader = new Reader();
  let usage: ReportedUsage;
  if (isRecord(response)) usage = read(response, reader);
  else {
    reader.bad("response", response);
    usage = { source, diagnosis: { status: "none" } };
  }
  if (reader.malformed.length > 0) usage.malformed = reader.malformed;
  return usage;
}

/** A response's id and model, where it names them as `id` and `model`. */
export function identity(
  response: Record<string, unknown>,
): { responseId?: string; responseModel?: string } {
  const id = get(response, "id");
  const model = get(response, "model");
  return {
    ...(typeof id === "string" ? { responseId: id } : {}),
    ...(typeof model === "string" ? { responseModel: model } : {}),
  };
}
