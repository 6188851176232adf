/**
 * The README's way on Bedrock Converse and Gemini before their
 * conversation objects (`readme-stateless`, frozen): the request loop of
 * docs/sending.md written with the stateless adapters, which
 * `deno task bench:cache` measures beside the conversations (the `readme`
 * way). Each step sends the adapter's fields
 * (`toConverse` with `cache: true`, `toGemini`) and the thread's history as
 * the harness keeps it: earlier messages never change, the runtime context
 * goes after the last message only when it changed (`runtimeContextUpdate`,
 * as one more text block of that message) and stays in the history, and on
 * Bedrock a cache point ends the last message (and the previous request's
 * end when a step adds more than 20 blocks), 1-hour ones while a person is
 * awaited (the adapter's too, so lifetimes never increase). One row per
 * form, by form id (`BODIES`); the `readme` way drives a form with a
 * conversation through its `simulation` (`readme_way.ts`).
 *
 * @module
 */

import { type PromptAssembly, runtimeContextUpdate } from "../mod.ts";
import { toConverse } from "../adapters/bedrock/mod.ts";
import { toGemini } from "../adapters/gemini/mod.ts";
import { BEDROCK_RULES } from "../adapters/bedrock/rules.ts";
import type { SessionMessage } from "../adapters/cache/mod.ts";
import type { Way, WayInput } from "./way_types.ts";

/** The Bedrock model and the Gemini model the bodies name. */
const MODEL = {
  bedrock: "anthropic.claude-sonnet-4-5",
  gemini: "gemini-3-flash",
} as const;

/** Bedrock's marks: how many a request carries, how far a read looks back. */
const MARKS = BEDROCK_RULES.marks!;

/** One message of the history: its role and its text blocks. */
interface Kept {
  role: "user" | "assistant";
  texts: string[];
}

/** What the stateless way remembers per thread and form. */
interface StatelessState {
  history?: Kept[];
  seen?: readonly SessionMessage[];
  previous?: PromptAssembly;
  /** The blocks of the history when the previous request was built. */
  previousBlocks?: number;
}

/**
 * One step's body in `form` (see the module documentation); `undefined`
 * for a form the stateless way does not build.
 */
export function statelessWay(
  form: string,
  input: WayInput,
): Record<string, unknown> | undefined {
  const build = BODIES[form];
  if (build === undefined) return undefined;
  const memory = input.state as StatelessState;
  const messages = input.request.messages;
  const seen = memory.seen ?? [];
  const grew = seen.length <= messages.length &&
    seen.every((message, index) =>
      message.role === messages[index].role &&
      message.content === messages[index].content
    );
  if (!grew || memory.history === undefined) {
    // The first step, or a rewritten (compacted) conversation: start over.
    memory.history = [];
    memory.previous = undefined;
    memory.previousBlocks = 0;
  }
  const history = memory.history;
  for (const message of input.messages.slice(grew ? seen.length : 0)) {
    history.push({ role: message.role, texts: [message.content || "."] });
  }
  memory.seen = [...messages];
  const update = runtimeContextUpdate(memory.previous, input.assembly);
  memory.previous = input.assembly;
  if (update !== undefined) {
    const last = history.at(-1);
    if (last?.role === "user") last.texts.push(update);
    else history.push({ role: "user", texts: [update] });
  }
  return build(history, input, memory);
}

/** A step's body from the history as kept. */
type BodyOf = (
  history: readonly Kept[],
  input: WayInput,
  memory: StatelessState,
) => Record<string, unknown>;

/** The Gemini body: the history as `contents`, the adapter's fields. */
const geminiBody: BodyOf = (history, input) => {
  const { systemInstruction, tools, toolConfig } = toGemini(input.assembly);
  return {
    model: MODEL.gemini,
    contents: history.map((message) => ({
      role: message.role === "assistant" ? "model" : "user",
      parts: message.texts.map((text) => ({ text })),
    })),
    config: {
      ...(systemInstruction ? { systemInstruction } : {}),
      ...(tools ? { tools } : {}),
      ...(toolConfig ? { toolConfig } : {}),
    },
  };
};

/** The Converse body: cache points on the history's ends. */
const converseBody: BodyOf = (history, input, memory) => {
  const person = input.request.awaiting === "person";
  const blocks = history.reduce(
    (sum, message) => sum + message.texts.length,
    0,
  );
  const ends = new Set([blocks - 1]);
  const before = memory.previousBlocks ?? 0;
  if (before > 0 && blocks - before > MARKS.lookbackBlocks) {
    ends.add(before - 1);
  }
  memory.previousBlocks = blocks;
  const { system, toolConfig } = toConverse(input.assembly, {
    cache: person ? { ttl: "1h" } : true,
    gating: "keep",
    maxCacheBreakpoints: MARKS.limit! - ends.size,
  });
  const point = person
    ? { cachePoint: { type: "default", ttl: "1h" } }
    : { cachePoint: { type: "default" } };
  let at = 0;
  return {
    modelId: MODEL.bedrock,
    system,
    ...(toolConfig ? { toolConfig } : {}),
    messages: history.map((message) => ({
      role: message.role,
      content: message.texts.flatMap((text) =>
        ends.has(at++) ? [{ text }, { ...point }] : [{ text }]
      ),
    })),
  };
};

/** The forms the stateless way builds, by form id. */
const BODIES: Readonly<Record<string, BodyOf>> = {
  "bedrock-converse": converseBody,
  gemini: geminiBody,
};

/** The ids of the forms the stateless way builds. */
export const STATELESS_FORMS: readonly string[] = Object.keys(BODIES);

/** The way itself: Bedrock Converse and Gemini bodies, no other form's. */
export const readmeStatelessWay: Way = (input) =>
  statelessWay(input.form, input);
