/**
 * A layer's records of one kind by name, for the duplicate check that every
 * registration of a named kind makes. A `Map` keyed by name would do, but in
 * a layer of 100,000 names each lookup follows a bucket chain through
 * entries and key strings scattered over the heap: about a microsecond of
 * cache misses, half the cost of a registration. Here the names' hashes sit
 * in one compact array, sixteen to a cache line, so a lookup reads one or
 * two lines and a record's name is read only when its hash matches.
 *
 * @module
 */

interface Named {
  readonly name?: string;
}

/** A slot's hash when it holds nothing; every real hash is at least 1. */
const FREE = 0;

/**
 * Seeds the hash per process, so that no fixed list of names collides
 * everywhere (as V8 seeds its own string hashes).
 */
const SEED = (Math.random() * 0x100000000) >>> 0;

/** The fewest slots a table has. */
const MIN_CAPACITY = 8;

/** FNV-1a over the UTF-16 code units, from 1 to 2^29. */
export function hashOf(name: string): number {
  let hash = SEED ^ 0x811c9dc5;
  for (let index = 0; index < name.length; index++) {
    hash = Math.imul(hash ^ name.charCodeAt(index), 0x01000193);
  }
  return (hash >>> 3) + 1;
}

/**
 * Records by name: open addressing with linear probing over a power of two
 * slots, at most four fifths used. Deletion shifts later entries back
 * instead of leaving tombstones, so probes stay short however long the
 * churn.
 */
export class NameTable<R extends Named> {
  #hashes = new Int32Array(MIN_CAPACITY);
  #records: (R | undefined)[] = freeRecords(MIN_CAPACITY);
  #mask = MIN_CAPACITY - 1;
  #size = 0;

  /** The number of records. */
  get size(): number {
    return this.#size;
  }

  /** Whether a record named `name` is in the table. */
  has(name: string): boolean {
    const hash = hashOf(name);
    const hashes = this.#hashes;
    const mask = this.#mask;
    for (let slot = hash & mask;; slot = (slot + 1) & mask) {
      const stored = hashes[slot];
      if (stored === FREE) return false;
      if (stored === hash && this.#records[slot]!.name === name) return true;
    }
  }

  /** Adds `record` under its name, which the table must not hold yet. */
  add(record: R): void {
    const capacity = this.#mask + 1;
    if ((this.#size + 1) * 5 > capacity * 4) this.#resize(capacity * 2);
    this.#put(hashOf(record.name!), record);
    this.#size++;
  }

  /** Removes `record` (by identity); false if the table does not hold it. */
  remove(record: R): boolean {
    const hash = hashOf(record.name!);
    const hashes = this.#hashes;
    const records = this.#records;
    const mask = this.#mask;
    let hole = hash & mask;
    for (;; hole = (hole + 1) & mask) {
      const stored = hashes[hole];
      if (stored === FREE) return false;
      if (stored === hash && records[hole] === record) break;
    }
    // Every later entry of the run that may live at the hole moves there.
    for (let slot = (hole + 1) & mask;; slot = (slot + 1) & mask) {
      const stored = hashes[slot];
      if (stored === FREE) break;
      const home = stored & mask;
      const reachable = hole <= slot
        ? home <= hole || home > slot
        : home <= hole && home > slot;
      if (!reachable) continue;
      hashes[hole] = stored;
      records[hole] = records[slot];
      hole = slot;
    }
    hashes[hole] = FREE;
    records[hole] = undefined;
    this.#size--;
    if (this.#mask >= MIN_CAPACITY && this.#size * 8 < this.#mask + 1) {
      this.#resize((this.#mask + 1) >>> 1);
    }
    return true;
  }

  #put(hash: number, record: R): void {
    const hashes = this.#hashes;
    const mask = this.#mask;
    let slot = hash & mask;
    while (hashes[slot] !== FREE) slot = (slot + 1) & mask;
    hashes[slot] = hash;
    this.#records[slot] = record;
  }

  #resize(capacity: number): void {
    const hashes = this.#hashes;
    const records = this.#records;
    this.#hashes = new Int32Array(capacity);
    this.#records = freeRecords(capacity);
    this.#mask = capacity - 1;
    for (let slot = 0; slot < hashes.length; slot++) {
      if (hashes[slot] !== FREE) this.#put(hashes[slot], records[slot]!);
    }
  }
}

/** A packed array of `undefined`, ready to hold records. */
function freeRecords<R>(capacity: number): (R | undefined)[] {
  return new Array<R | undefined>(capacity).fill(undefined);
}
