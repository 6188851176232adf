/**
 * The golden bodies of the example sessions (issue 45): every session run
 * the ways `rxprompt simulate` and `bench:cache` run it (each wire, the
 * README's way also with inline tool changes and with a harness restart),
 * and through every conversation variant of `variants.ts`, its turns fed
 * to the conversation as the README's way feeds them and its answers
 * synthesised in the form's shape. Also each variant's `save()` and
 * `report()` of each session.
 */
import type { PromptAssembly } from "../../mod.ts";
import type {
  SessionMessage,
  SessionToolCall,
} from "../../adapters/cache/mod.ts";
import { runSession } from "../../cli/session.ts";
import { readmeWayWith, type Way } from "../../cli/readme_way.ts";
import { readmeStatelessWay } from "../../cli/readme_way_stateless.ts";
import { REGISTRATIONS, WAYS } from "../../examples/sessions/ways.ts";
import { SESSIONS } from "../../examples/sessions/mod.ts";
import {
  answerOf,
  countTokens,
  type Driven,
  steppedClock,
  type Variant,
  VARIANTS,
} from "./variants.ts";

/**
 * The name a form's bodies had when the fixtures were taken (0.4's
 * "wire"): the keys stay, the bodies are never re-taken.
 */
const WIRE: Readonly<Record<string, string>> = {
  "anthropic-messages": "anthropic",
  "openai-chat": "openai",
  "bedrock-converse": "bedrock",
  gemini: "gemini",
};

/** Named values whose JSON the fixtures digest. */
export type Golden = Map<string, unknown>;

/**
 * Every session run every way (as `bench:cache` runs them), the README's
 * way also with inline tool changes and restarted mid-way: key
 * `session/way/wire/step`.
 */
export async function sessionWayBodies(): Promise<Golden> {
  const golden: Golden = new Map();
  for (const [name, module] of Object.entries(SESSIONS)) {
    for (const registration of new Set(Object.values(REGISTRATIONS))) {
      const ways = Object.fromEntries(
        Object.entries(WAYS).filter(([way]) =>
          REGISTRATIONS[way] === registration
        ),
      );
      if (registration === "readme") {
        ways["readme-inline"] = readmeWayWith({ toolChanges: "inline" });
        // Bedrock's and Gemini's bodies before their conversations (the
        // `readme` way's until then, keyed so since).
        ways["readme-stateless"] = readmeStatelessWay;
      }
      const steps = await runSession(
        await module.default({ registration }),
        ways,
        { volatileSections: module.volatileSections },
      );
      for (const step of steps) {
        for (const [way, wires] of step.bodies) {
          for (const [form, body] of Object.entries(wires)) {
            golden.set(`${name}/${way}/${WIRE[form]}/${step.index}`, body);
          }
        }
      }
    }
    const build = () => module.default({ registration: "readme" });
    const first = await build();
    const at = Math.floor(first.steps.length / 2);
    const restarted = await runSession(first, { readme: readmeWayWith() }, {
      volatileSections: module.volatileSections,
      restart: { at, session: build },
    });
    for (const step of restarted) {
      for (const [form, body] of Object.entries(step.bodies.get("readme")!)) {
        golden.set(
          `${name}/readme-restarted/${WIRE[form]}/${step.index}`,
          body,
        );
      }
    }
  }
  return golden;
}

/** What a variant's way keeps per thread. */
interface Memory {
  conversation?: Driven;
  seen?: readonly SessionMessage[];
  pending?: boolean;
  answers?: number;
  assembly?: PromptAssembly;
}

/** The conversations a variant's run made, by thread, in order. */
type Made = Map<string, Driven[]>;

/**
 * A way that feeds a session's turns to `variant`'s conversation, one per
 * thread (a new one when the session rewrote its messages), as the
 * README's way does; it builds its body in the Anthropic Messages form only
 * (one body per step).
 */
function variantWay(variant: Variant, made: Made): Way {
  return async (input) => {
    if (input.form !== "anthropic-messages") return undefined;
    const memory = input.state as Memory;
    const messages = input.request.messages;
    const before = memory.seen ?? [];
    const grew = before.length <= messages.length &&
      before.every((message, index) =>
        JSON.stringify(message) === JSON.stringify(messages[index])
      );
    memory.assembly = input.assembly;
    if (!grew || memory.conversation === undefined) {
      const prompt = { assemble: () => Promise.resolve(memory.assembly!) };
      memory.conversation = variant.start(prompt, {
        session: `golden-${input.thread}`,
        clock: steppedClock(),
      });
      const list = made.get(input.thread) ?? [];
      list.push(memory.conversation);
      made.set(input.thread, list);
      memory.seen = [];
      memory.pending = false;
    }
    const conversation = memory.conversation;
    for (const message of messages.slice(memory.seen!.length)) {
      if (message.role === "assistant") {
        if (memory.pending !== true) await conversation.request();
        const n = memory.answers = (memory.answers ?? 0) + 1;
        conversation.record(answerOf(variant.kind, {
          n,
          text: message.content,
          calls: (message.toolCalls ?? []) as SessionToolCall[],
        }));
        memory.pending = false;
        continue;
      }
      for (const result of message.toolResults ?? []) {
        conversation.toolResult(result.id, result.content || "(empty)", {
          isError: result.isError ?? false,
        });
      }
      if (message.content !== "" || message.toolResults === undefined) {
        conversation.user(message.content || ".");
      }
    }
    memory.seen = [...messages];
    const body = await conversation.request(undefined, {
      awaiting: input.request.awaiting ?? "agent",
    });
    memory.pending = true;
    return body as Record<string, unknown>;
  };
}

/**
 * Every session through every variant: the bodies (key
 * `session/variant/step`), and each conversation's `save()` and
 * `report()` (key `session/variant/thread/n/save|report`).
 */
export async function sessionFormGoldens(): Promise<
  { bodies: Golden; records: Golden }
> {
  const bodies: Golden = new Map();
  const records: Golden = new Map();
  for (const [name, module] of Object.entries(SESSIONS)) {
    for (const variant of VARIANTS) {
      const made: Made = new Map();
      const steps = await runSession(
        await module.default({ registration: "readme" }),
        { [variant.name]: variantWay(variant, made) },
        { volatileSections: module.volatileSections },
      );
      for (const step of steps) {
        const body = step.bodies.get(variant.name)?.["anthropic-messages"];
        bodies.set(`${name}/${variant.name}/${step.index}`, body);
      }
      for (const [thread, conversations] of made) {
        conversations.forEach((conversation, n) => {
          const key = `${name}/${variant.name}/${thread}/${n}`;
          records.set(`${key}/save`, conversation.save());
          records.set(`${key}/report`, conversation.report({ countTokens }));
        });
      }
    }
  }
  return { bodies, records };
}
