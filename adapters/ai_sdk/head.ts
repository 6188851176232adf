/**
 * The AI SDK form's head (issue 45): what a step's body is built of besides
 * its messages (the system messages and the tool set, live), what the
 * recording keeps of it (each tool with its schema), and a head made again
 * from that record.
 *
 * @module
 */

import type { ToolSchema } from "../../mod.ts";
import type { FormHead } from "../../src/conversation/form.ts";
import type { AISDKConversationBody } from "./conversation_types.ts";
import type * as Request from "./request.ts";

/** The request of one assembly (`aiSdkRequest`, given by the start functions). */
export type AISDKRequestOf = typeof Request.aiSdkRequest;

/** What a step's body is made of: the system messages and the tool set. */
export type Live = Pick<AISDKConversationBody, "system" | "tools">;

/**
 * A step's head: recorded, the system messages and each tool with its
 * schema (the report lays a step out as the provider's body); live, the
 * system and the tool set themselves.
 */
export function headOf(live: Live): FormHead {
  return {
    recorded: {
      system: live.system,
      tools: Object.entries(live.tools).map(([name, entry]) => ({
        name,
        description: entry.description,
        inputSchema: (entry.inputSchema as { jsonSchema?: unknown })
          .jsonSchema,
        providerOptions: entry.providerOptions,
      })),
    },
    live,
    state: {},
  };
}

/** One tool as {@linkcode headOf} records it. */
interface RecordedTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: unknown;
  readonly providerOptions?: unknown;
}

/**
 * {@linkcode headOf} of a recorded head: its tool set made again by the
 * adapter (`request`: the form loads no AI SDK of its own), each with the
 * marks it was recorded with.
 */
export function resumedHeadOf(
  recorded: Record<string, unknown>,
  request: AISDKRequestOf,
): FormHead {
  const entries = (recorded.tools ?? []) as RecordedTool[];
  const { tools } = request(
    {
      sections: [],
      tools: entries.map(({ name, description, inputSchema }) => ({
        name,
        description: description ?? "",
        parameters: inputSchema as ToolSchema["parameters"],
      })),
      variables: {},
    },
    { gating: "keep" },
    { keepToolsEnd: false },
  );
  for (const { name, providerOptions } of entries) {
    if (providerOptions === undefined) continue;
    // A define, not an assignment: `__proto__` must stay an own key.
    Object.defineProperty(tools, name, {
      value: { ...tools[name], providerOptions },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return headOf({ system: recorded.system as Live["system"], tools });
}
