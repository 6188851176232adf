/**
 * The tools a conversation lists, step by step (SPEC 9.1, 9.8 "Tool
 * changes"): the tools of its first request stay listed byte for byte; a
 * tool the registry dropped stays listed and inactive; an added tool (or
 * a changed definition) rebuilds the list once, the added tool at its
 * canonical place. Pure.
 *
 * @module
 */

import type { PromptAssembly, ToolSchema } from "../types.ts";
import {
  keepJson,
  type KeptJson,
  writesSameJson,
} from "../shared/same_json.ts";

/**
 * One tool a conversation lists (in a recording's step).
 *
 * @example
 * ```ts
 * import type { ListedTool } from "@rxprompt/system-prompt";
 *
 * const listed: ListedTool = {
 *   schema: { name: "shell", description: "Run a command.", parameters: {} },
 *   stability: "volatile",
 * };
 * ```
 */
export interface ListedTool {
  /** The definition as it is sent. */
  readonly schema: ToolSchema;
  /**
   * Its stability for marker selection: absent for the tools of the
   * conversation's first request (they count as stable), else the
   * stability the registry gave it when it was listed.
   */
  readonly stability?: "agent" | "volatile";
}

/** The tools of the next request. */
export interface ToolSetStep {
  /** Every listed tool, in wire order. */
  readonly listed: readonly ListedTool[];
  /** Whether `listed` differs from the tools listed before. */
  readonly changed: boolean;
  /** The listed tools the assembly no longer has: inactive. */
  readonly dropped: readonly string[];
}

/**
 * The tools the next request lists, given the tools listed so far
 * (`undefined` before the first request) and this step's assembly. With
 * `append` (a fork's first request, listing its parent's tools), the added
 * tools go after the listed ones, in the assembly's order, so the child
 * shares its parent's whole tools block.
 */
export function nextToolSet(
  before: readonly ListedTool[] | undefined,
  assembly: Pick<PromptAssembly, "tools" | "toolStability">,
  { append = false }: { readonly append?: boolean } = {},
): ToolSetStep {
  const stabilityOf = (name: string) =>
    Object.hasOwn(assembly.toolStability ?? {}, name)
      ? assembly.toolStability![name]
      : undefined;
  if (before === undefined) {
    return {
      listed: assembly.tools.map((schema) => ({ schema })),
      changed: true,
      dropped: [],
    };
  }
  if (sameTools(before, assembly.tools)) {
    return { listed: before, changed: false, dropped: [] };
  }
  const current = new Map(assembly.tools.map((tool) => [tool.name, tool]));
  const listed: ListedTool[] = [];
  const dropped: string[] = [];
  let changed = false;
  for (const tool of before) {
    const now = current.get(tool.schema.name);
    if (now === undefined) {
      dropped.push(tool.schema.name);
      listed.push(tool);
    } else if (sameDefinition(tool.schema, now)) {
      listed.push(tool);
    } else {
      // A changed definition is sent as the registry has it now.
      changed = true;
      listed.push(withStability(now, tool.stability));
    }
  }
  const names = new Set(before.map((tool) => tool.schema.name));
  let previous: string | undefined;
  for (const tool of assembly.tools) {
    if (!names.has(tool.name)) {
      // An added tool goes right after its canonical predecessor.
      const at = append
        ? listed.length
        : previous === undefined
        ? 0
        : listed.findIndex((entry) => entry.schema.name === previous) + 1;
      listed.splice(at, 0, withStability(tool, stabilityOf(tool.name)));
      names.add(tool.name);
      changed = true;
    }
    previous = tool.name;
  }
  return { listed, changed, dropped };
}

/**
 * The names the next request allows: the assembly's `activeTools` (or all
 * its tools) without the dropped ones; `undefined` when every listed tool
 * is active.
 */
export function activeToolNames(
  step: ToolSetStep,
  activeTools: readonly string[] | undefined,
): string[] | undefined {
  if (activeTools === undefined && step.dropped.length === 0) return undefined;
  const dropped = new Set(step.dropped);
  const active = activeTools === undefined ? undefined : new Set(activeTools);
  return step.listed.flatMap(({ schema: { name } }) =>
    !dropped.has(name) && (active === undefined || active.has(name))
      ? [name]
      : []
  );
}

/**
 * The assembly as the adapter reads it for this request: the listed
 * tools, their stabilities (the first request's count as stable) and the
 * active names.
 */
export function listedAssembly(
  assembly: PromptAssembly,
  step: ToolSetStep,
): PromptAssembly {
  const toolStability: Record<string, "agent" | "volatile"> = {};
  for (const { schema, stability } of step.listed) {
    if (stability !== undefined) toolStability[schema.name] = stability;
  }
  const active = activeToolNames(step, assembly.activeTools);
  // A rest, not `delete`: an object a key was deleted from is read slowly.
  const { activeTools: _, ...rest } = assembly;
  return {
    ...rest,
    tools: step.listed.map((tool) => tool.schema),
    toolStability,
    ...(active === undefined ? {} : { activeTools: active }),
  };
}

/** The refusal a call of an inactive tool gets (SPEC 8.5). */
export function refusalText(
  name: string,
  active: readonly string[],
): string {
  const allowed = active.length === 0
    ? "no tool is active this step"
    : `the active tools are ${active.map((n) => JSON.stringify(n)).join(", ")}`;
  return `Tool ${
    JSON.stringify(name)
  } is not active this step; ${allowed}. Call one of those instead.`;
}

/**
 * Whether two definitions are the same bytes. A listed definition's JSON
 * is kept (they are compared again at every step).
 */
function sameDefinition(listed: ToolSchema, now: ToolSchema): boolean {
  return writesSameJson(now, keptOf(listed));
}

const KEPT = new WeakMap<ToolSchema, KeptJson>();

function keptOf(schema: ToolSchema): KeptJson {
  let kept = KEPT.get(schema);
  if (kept === undefined) {
    kept = keepJson(schema);
    KEPT.set(schema, kept);
  }
  return kept;
}

/**
 * Whether the assembly has exactly the listed definitions, in order (the
 * usual step): each compared with its JSON kept with the list.
 */
function sameTools(
  listed: readonly ListedTool[],
  tools: readonly ToolSchema[],
): boolean {
  if (listed.length !== tools.length) return false;
  let kept = LIST_KEPT.get(listed);
  if (kept === undefined) {
    kept = listed.map((tool) => keptOf(tool.schema));
    LIST_KEPT.set(listed, kept);
  }
  for (let index = 0; index < kept.length; index++) {
    if (!writesSameJson(tools[index], kept[index])) return false;
  }
  return true;
}

const LIST_KEPT = new WeakMap<readonly ListedTool[], KeptJson[]>();

function withStability(
  schema: ToolSchema,
  stability: "agent" | "volatile" | undefined,
): ListedTool {
  return stability === undefined ? { schema } : { schema, stability };
}

/**
 * A tool change sent inline (`toolChanges: "inline"`, Anthropic and OpenAI
 * Responses).
 */
export interface InlineToolChanges {
  /** The tools the model loses, by name. */
  readonly removed: readonly string[];
  /**
   * The tools the model gains: `reference` when the first request listed
   * the same definition (a `tool_reference`), else the whole definition.
   */
  readonly added: readonly {
    readonly schema: ToolSchema;
    readonly reference: boolean;
  }[];
  /**
   * The names the model may call, when not every tool it has: the active
   * listed and inline ones, then the active deferred ones.
   */
  readonly allowed?: readonly string[];
}

/** The tools of the next request when tool changes go inline. */
export interface InlineToolStep {
  /** The tools block: the first request's, never rebuilt. */
  readonly listed: readonly ListedTool[];
  /** The tools the model has after this request. */
  readonly effective: readonly ListedTool[];
  /** Whether `effective` differs from before. */
  readonly changed: boolean;
  /** Whether `listed` differs from before (a redefinition rebuilt it). */
  readonly listedChanged: boolean;
  /** What this request tells the model. */
  readonly changes: InlineToolChanges;
  /**
   * The names the model may call, when not every tool it was given (gates,
   * or a tool the registry dropped); an addition alone needs none.
   */
  readonly allowed: string[] | undefined;
}

/**
 * The tools of the next request when changes go inline: the tools block
 * stays the first request's; a tool the registry dropped is removed, an
 * added one (or a changed definition: a removal and an addition) added, in
 * the conversation (SPEC 9.8). With `redefine: "rebuild"` (an API that
 * takes no second definition under a name, OpenAI Responses) a changed
 * definition rebuilds the tools block instead: the new definition replaces
 * the listed one, or joins the block at its canonical place for a tool
 * that came in inline.
 */
export function nextInlineToolSet(
  listed: readonly ListedTool[] | undefined,
  effective: readonly ListedTool[] | undefined,
  assembly: Pick<PromptAssembly, "tools" | "activeTools">,
  options: {
    readonly redefine?: "inline" | "rebuild";
    /** Every tool the model was given (`declaredTools`). */
    readonly declared?: readonly ListedTool[];
  } = {},
): InlineToolStep {
  const now = assembly.tools.map((schema) => ({ schema }));
  const gate = (names: string[]) =>
    assembly.activeTools === undefined
      ? names
      : names.filter((name) => assembly.activeTools!.includes(name));
  if (listed === undefined || effective === undefined) {
    return {
      listed: now,
      effective: now,
      changed: true,
      listedChanged: true,
      changes: { removed: [], added: [] },
      allowed: assembly.activeTools === undefined
        ? undefined
        : gate(now.map((tool) => tool.schema.name)),
    };
  }
  const current = new Map(assembly.tools.map((tool) => [tool.name, tool]));
  const had = new Map(effective.map((tool) => [tool.schema.name, tool]));
  const redefined = options.redefine === "rebuild"
    ? redefinitions(
      listed,
      declaredTools(options.declared, effective) ?? [],
      assembly.tools,
    )
    : new Set<string>();
  if (redefined.size > 0) {
    listed = rebuiltList(listed, assembly.tools, redefined);
    for (const name of redefined) had.set(name, { schema: current.get(name)! });
  }
  const first = new Map(listed.map((tool) => [tool.schema.name, tool]));
  const removed: string[] = [];
  for (const { schema } of effective) {
    const next = current.get(schema.name);
    if (
      next === undefined ||
      (!redefined.has(schema.name) && !sameDefinition(schema, next))
    ) {
      removed.push(schema.name);
    }
  }
  const added = assembly.tools.flatMap((schema) => {
    const before = had.get(schema.name);
    if (before !== undefined && sameDefinition(before.schema, schema)) {
      return [];
    }
    const listedBefore = first.get(schema.name);
    return [{
      schema,
      reference: listedBefore !== undefined &&
        sameDefinition(listedBefore.schema, schema),
    }];
  });
  const changed = removed.length > 0 || added.length > 0 ||
    redefined.size > 0;
  const names = now.map((tool) => tool.schema.name);
  // An added tool is the model's without a tool choice (its item declares
  // it): only a tool the model still has and the registry dropped needs
  // the allowed list.
  const given = [
    ...listed,
    ...declaredTools(options.declared, effective) ?? [],
  ];
  const allCurrent = given.every((tool) => current.has(tool.schema.name));
  return {
    listed,
    effective: changed ? now : effective,
    changed,
    listedChanged: redefined.size > 0,
    changes: { removed, added },
    allowed: assembly.activeTools === undefined && allCurrent
      ? undefined
      : gate(names),
  };
}

/**
 * Every tool the model was given: `before`'s, then `effective`'s (the
 * latest definition of each name); `undefined` without inline changes.
 */
export function declaredTools(
  before: readonly ListedTool[] | undefined,
  effective: readonly ListedTool[] | undefined,
): readonly ListedTool[] | undefined {
  if (effective === undefined) return before;
  if (before === undefined) return effective;
  const names = new Set(effective.map((tool) => tool.schema.name));
  return [
    ...before.filter((tool) => !names.has(tool.schema.name)),
    ...effective,
  ];
}

/**
 * The tools the registry now defines otherwise than the model knows them
 * (the listed definition, or the latest one it got inline).
 */
function redefinitions(
  listed: readonly ListedTool[],
  effective: readonly ListedTool[],
  tools: readonly ToolSchema[],
): Set<string> {
  const known = new Map(listed.map((tool) => [tool.schema.name, tool.schema]));
  for (const { schema } of effective) known.set(schema.name, schema);
  const redefined = new Set<string>();
  for (const tool of tools) {
    const before = known.get(tool.name);
    if (before !== undefined && !sameDefinition(before, tool)) {
      redefined.add(tool.name);
    }
  }
  return redefined;
}

/**
 * The tools block with these tools' new definitions: in place, or after
 * their canonical predecessor for one that was not listed.
 */
function rebuiltList(
  listed: readonly ListedTool[],
  tools: readonly ToolSchema[],
  redefined: ReadonlySet<string>,
): ListedTool[] {
  const current = new Map(tools.map((tool) => [tool.name, tool]));
  const rebuilt = listed.map((tool) =>
    redefined.has(tool.schema.name)
      ? { schema: current.get(tool.schema.name)! }
      : tool
  );
  let previous: string | undefined;
  for (const tool of tools) {
    if (
      redefined.has(tool.name) &&
      !rebuilt.some((entry) => entry.schema.name === tool.name)
    ) {
      const at = previous === undefined
        ? 0
        : rebuilt.findIndex((entry) => entry.schema.name === previous) + 1;
      rebuilt.splice(at, 0, { schema: tool });
    }
    if (rebuilt.some((entry) => entry.schema.name === tool.name)) {
      previous = tool.name;
    }
  }
  return rebuilt;
}
