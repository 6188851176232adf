/**
 * The ways a harness builds each step's request from the same session
 * (SPEC 8.8): the scenario is the session, the layout is the way.
 *
 * - `static-first`: what a harness author writes without rxprompt's layout
 *   features: the tools the step may use (gated tools removed), the system
 *   prompt with the static instructions first and one cache breakpoint
 *   after them, the volatile facts (the sections the author knows change,
 *   then the runtime context) at its end, and the conversation with a
 *   breakpoint on its last message.
 * - `readme-0.2`: the 0.2 README's advice, frozen: the adapters' system
 *   prompt and tools (`cache: true`; `breakpoints: "explicit"` keeps 0.2's
 *   markers once 0.3 changes the default), the runtime context as a user
 *   message right after the system prompt, then the conversation (its last
 *   message marked for Anthropic). No OpenAI explicit marks (0.2 has none).
 * - `readme`: the current README's advice, as `rxprompt simulate` uses it
 *   (`cli/readme_way.ts`).
 *
 * The frozen ways build no Bedrock or Gemini bodies: 0.2 had no adapter
 * for them.
 *
 * @module
 */

import {
  type PromptAssembly,
  renderPrompt,
  renderRuntimeContext,
} from "../../mod.ts";
import {
  type MessagesOptions,
  toMessages,
} from "../../adapters/anthropic/mod.ts";
import { toChatCompletions } from "../../adapters/openai/mod.ts";
import { markLast, readmeWay, type Way } from "../../cli/readme_way.ts";

import type { SessionOptions } from "./mod.ts";

export type { Way, WayInput } from "../../cli/readme_way.ts";

/** The hand-written harness (see the module documentation). */
export const staticFirst: Way = (
  { form, assembly, messages, volatileSections },
) => {
  if (form !== "anthropic-messages" && form !== "openai-chat") return undefined;
  const sections = assembly.sections;
  const text = (kept: PromptAssembly["sections"]) =>
    renderPrompt({ ...assembly, sections: [...kept] });
  const fixed = text(sections.filter((s) => !volatileSections.has(s.name)));
  const volatile = [
    text(sections.filter((s) => volatileSections.has(s.name))),
    renderRuntimeContext(assembly),
  ].filter((part) => part !== "").join("\n\n");
  const active = (assembly as { activeTools?: readonly string[] })
    .activeTools;
  const tools = active === undefined
    ? assembly.tools
    : assembly.tools.filter((tool) => active.includes(tool.name));
  if (form === "anthropic-messages") {
    return {
      ...(tools.length === 0 ? {} : {
        tools: tools.map(({ name, description, parameters }) => ({
          name,
          description,
          input_schema: { type: "object", ...parameters },
        })),
      }),
      system: [
        { type: "text", text: fixed, cache_control: { type: "ephemeral" } },
        ...(volatile === "" ? [] : [{ type: "text", text: volatile }]),
      ],
      messages: markLast(messages),
    };
  }
  const mark = { prompt_cache_breakpoint: { mode: "explicit" } };
  return {
    ...(tools.length === 0 ? {} : {
      tools: tools.map(({ name, description, parameters }) => ({
        type: "function",
        function: { name, description, parameters },
      })),
    }),
    messages: [
      {
        role: "system",
        content: [
          { type: "text", text: fixed, ...mark },
          ...(volatile === "" ? [] : [{ type: "text", text: volatile }]),
        ],
      },
      ...messages.map((message, index) =>
        index === messages.length - 1
          ? {
            role: message.role,
            content: [{ type: "text", text: message.content, ...mark }],
          }
          : message
      ),
    ],
  };
};

/** 0.2's options, with the marker layout 0.2 had whatever the default. */
const FROZEN: MessagesOptions = { cache: true, breakpoints: "explicit" };

/** The 0.2 README's advice, frozen (see the module documentation). */
export const readme02: Way = ({ form, assembly, messages }) => {
  if (form !== "anthropic-messages" && form !== "openai-chat") return undefined;
  if (form === "anthropic-messages") {
    const { system, tools, runtimeContext } = toMessages(assembly, FROZEN);
    return {
      ...(tools === undefined ? {} : { tools }),
      system,
      messages: [
        ...(runtimeContext === undefined ? [] : [runtimeContext]),
        ...markLast(messages),
      ],
    };
  }
  const { system, tools, runtimeContext } = toChatCompletions(assembly);
  return {
    ...(tools === undefined ? {} : { tools }),
    messages: [
      system,
      ...(runtimeContext === undefined ? [] : [runtimeContext]),
      ...messages,
    ],
  };
};

/** The current README's advice: the way `rxprompt simulate` builds requests. */
export const readme: Way = readmeWay;

/**
 * How each way's sessions register their scenario (see `SessionOptions`):
 * the frozen ways as the 0.2 README would, the README's way as it advises.
 */
export const REGISTRATIONS: Readonly<
  Record<string, NonNullable<SessionOptions["registration"]>>
> = {
  "static-first": "0.2",
  "readme-0.2": "0.2",
  readme: "readme",
};

/** Every way, by the name the reports print. */
export const WAYS: Readonly<Record<string, Way>> = {
  "static-first": staticFirst,
  "readme-0.2": readme02,
  readme,
};
