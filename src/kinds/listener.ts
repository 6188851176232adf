/**
 * The listener kind: stages of the assembly waterfall. Anonymous (the same
 * function twice is two registrations); they run in registration order
 * across layers, so a layer keeps them in that order too.
 *
 * @module
 */

import { mergeSorted } from "../shared/util.ts";
import type { AssembleListener } from "../types.ts";
import {
  assertFunction,
  type Kind,
  type KindLayer,
  type Provenance,
  type RecordBase,
  recordsOf,
} from "./kind.ts";

/** A registered listener, as stored in a layer. */
export interface ListenerRecord extends RecordBase {
  readonly listener: AssembleListener<unknown>;
}

/** The listener kind; its records feed the waterfall, not the build. */
export const listenerKind: Kind<ListenerRecord> = {
  change: "listener",
  record: toListenerRecord,
};

function toListenerRecord(
  listener: unknown,
  { label, sequence }: Provenance,
): ListenerRecord {
  assertFunction(listener, "An assembly listener");
  return { listener: listener as AssembleListener<unknown>, label, sequence };
}

function compareSequence(a: ListenerRecord, b: ListenerRecord): number {
  return a.sequence - b.sequence;
}

/** The listeners of every layer, in registration order. */
export function listenersOf(
  layers: readonly KindLayer<ListenerRecord>[],
): AssembleListener<unknown>[] {
  return mergeSorted(recordsOf(layers), compareSequence).map((record) =>
    record.listener
  );
}
