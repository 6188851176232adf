/**
 * The suppressor kind: while a layer an assembly reads holds one, that
 * assembly calls no runtime context provider and its `runtimeContext` is
 * `[]` after the waterfall. Anonymous, like listeners.
 *
 * @module
 */

import { append, type Kind, type Provenance, type RecordBase } from "./kind.ts";

/** A registered suppressor: only its provenance. */
export type SuppressorRecord = RecordBase;

/** The suppressor kind; read through the snapshot, not built. */
export const suppressorKind: Kind<SuppressorRecord> = {
  change: "suppressor",
  record: toSuppressorRecord,
  insert: append,
};

function toSuppressorRecord(
  _input: unknown,
  { label, sequence }: Provenance,
): SuppressorRecord {
  return { label, sequence };
}
