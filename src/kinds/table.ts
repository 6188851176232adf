/**
 * The table of registration kinds. Adding a kind is one file in
 * `src/kinds/`, one entry here, and one `Registrar` method.
 *
 * The entries' order is the build order of an assembly: variables, then
 * sections, runtime contexts, then tools and the tool gates (which read the
 * tools); listeners
 * run after, as the waterfall; suppressors are read by the builder.
 *
 * @module
 */

import type { Kind } from "./kind.ts";
import { listenerKind } from "./listener.ts";
import { runtimeContextKind } from "./runtime_context.ts";
import { sectionKind } from "./section.ts";
import { suppressorKind } from "./suppressor.ts";
import { toolGateKind } from "./tool_gate.ts";
import { toolsKind } from "./tools.ts";
import { variableKind } from "./variable.ts";

/** Every registration kind, by the name a layer stores it under. */
export const KINDS = {
  variable: variableKind,
  section: sectionKind,
  runtimeContext: runtimeContextKind,
  tools: toolsKind,
  toolGate: toolGateKind,
  listener: listenerKind,
  suppressor: suppressorKind,
} as const;

/** The name of a registration kind. */
export type KindName = keyof typeof KINDS;

/** The record a kind stores. */
export type RecordOf<K extends KindName> = (typeof KINDS)[K] extends
  Kind<infer R, infer _I> ? R : never;

/** The input a kind's `Registrar` method hands over. */
export type InputOf<K extends KindName> = (typeof KINDS)[K] extends
  Kind<infer _R, infer I> ? I : never;

/** The kind names in build order. */
export const KIND_NAMES: readonly KindName[] = Object.keys(KINDS) as KindName[];
