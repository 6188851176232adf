/**
 * Stability as a rank, shared by the rooms that compare stabilities (the
 * kinds, the prompt blocks, the adapters): 0 stable, 1 agent, 2 volatile.
 *
 * @module
 */

import type { Stability } from "../types.ts";

/** A stability as a number: 0 stable, 1 agent, 2 volatile. */
export type StabilityRank = 0 | 1 | 2;

/** The stabilities by rank. */
export const STABILITIES: readonly Stability[] = [
  "stable",
  "agent",
  "volatile",
];

/** The rank of a valid stability, or `-1`. */
export function rankOf(stability: unknown): StabilityRank | -1 {
  switch (stability) {
    case "stable":
      return 0;
    case "agent":
      return 1;
    case "volatile":
      return 2;
    default:
      return -1;
  }
}
