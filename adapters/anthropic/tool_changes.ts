/**
 * The blocks of a `role: "system"` message telling the model of tool
 * changes inline (SPEC 9.8): `tool_removal` / `tool_addition`.
 *
 * @module
 */

import type { InlineToolChanges } from "../../src/conversation/tool_set.ts";
import { toTool } from "./messages.ts";
import type { MessagesToolChangeBlock } from "./message_types.ts";

/** The blocks telling the model of tool changes: removals, then additions. */
export function toolChangeBlocks(
  changes: InlineToolChanges,
): MessagesToolChangeBlock[] {
  const content: MessagesToolChangeBlock[] = changes.removed.map((name) => ({
    type: "tool_removal",
    tool: { type: "tool_reference", name },
  }));
  for (const { schema, reference } of changes.added) {
    content.push({
      type: "tool_addition",
      tool: reference
        ? { type: "tool_reference", name: schema.name }
        : { type: "tool_definition", definition: toTool(schema) },
    });
  }
  return content;
}
