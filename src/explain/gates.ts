/**
 * Which tool gate made each inactive tool inactive, for `explain()`.
 *
 * @module
 */

import { describeGate, type GateAnswer } from "../kinds/tool_gate.ts";
import type { ToolOrigin } from "./explanation.ts";

/**
 * Sets `inactiveBy` on each origin whose tool is not in the final
 * `activeTools`: the first answering gate (farthest layer first, then
 * registration order) that does not allow it, else the listeners.
 */
export function markInactive(
  origins: ToolOrigin[],
  activeTools: readonly string[] | undefined,
  answers: readonly GateAnswer[],
): ToolOrigin[] {
  if (activeTools === undefined) return origins;
  const active = new Set(activeTools);
  for (const origin of origins) {
    if (active.has(origin.name)) continue;
    const gate = answers.find(({ allowed }) => !allowed.has(origin.name));
    origin.inactiveBy = gate === undefined
      ? "an assembly listener"
      : describeGate(gate.record, gate.index, gate.scope);
  }
  return origins;
}
