/**
 * The oracle of the conversation's report: a recording's requests with
 * each step's whole body rebuilt the way rxprompt 0.4 rebuilt them, a
 * copy of the history per step (quadratic, and plain): the head, the
 * history so far and the step's tail, the marks put back on copies of
 * their parts; an AI SDK step as `aiSdkWireBody` lays it out. The report
 * reads each message once instead; over these bodies `cacheReport` must
 * give what it gives.
 */
import { aiSdkWireBody } from "../../adapters/ai_sdk/anthropic_body.ts";
import {
  parseRecording,
  type RecordingStep,
} from "../../src/conversation/recording.ts";
import { recordedRequests } from "../../src/conversation/report.ts";
import type { ReportedRequest } from "../../adapters/cache/mod.ts";
import type { CacheProvider } from "../../adapters/cache/mod.ts";
import { RECOGNITION } from "../../adapters/forms.ts";

type Json = Record<string, unknown>;
type Marks = RecordingStep["marks"];

/** Each form's reading of an answer's messages. */
function formOf(form: string) {
  return RECOGNITION.find((known) => known.id === form)!;
}

function readerOf(form: string): (answer: unknown) => unknown[] {
  return (answer) =>
    formOf(form).readAnswer(answer as never, () => {}).messages;
}

/** How 0.4 laid out each wire's head and history, and put marks back. */
const LAYOUTS: Record<
  string,
  (head: Json, history: readonly unknown[], marks: Marks) => Json
> = {
  "anthropic-messages": (head, history, marks) => ({
    ...head,
    messages: marked(history, marks, "cache_control"),
  }),
  "openai-chat": (head, history, marks) => {
    const { system, ...rest } = head;
    return {
      ...rest,
      messages: marked([system, ...history], marks, "prompt_cache_breakpoint"),
    };
  },
  "openai-responses": (head, history, marks) => {
    const { system, ...rest } = head;
    return {
      ...rest,
      input: marked([system, ...history], marks, "prompt_cache_breakpoint"),
    };
  },
  "ai-sdk": aiSdkWireBody,
  gemini: (head, history) => ({ ...head, contents: [...history] }),
  // A cache point is a block of its own, after the block it ends.
  "bedrock-converse": (head, history, marks) => {
    const messages = [...history] as Json[];
    for (const { message, block, mark } of marks) {
      const content = messages[message].content as unknown[];
      messages[message] = {
        ...messages[message],
        content: [
          ...content.slice(0, block + 1),
          { cachePoint: mark },
          ...content.slice(block + 1),
        ],
      };
    }
    return { ...head, messages };
  },
};

function marked(items: readonly unknown[], marks: Marks, key: string) {
  const result = [...items];
  for (const { message, block, mark } of marks) {
    const item = result[message] as Json | undefined;
    if (typeof item !== "object" || item === null) continue;
    const field = Array.isArray(item.content) ? "content" : "output";
    const parts = item[field];
    if (!Array.isArray(parts) || typeof parts[block] !== "object") continue;
    const copy = [...parts];
    copy[block] = { ...parts[block], [key]: mark };
    result[message] = { ...item, [field]: copy };
  }
  return result;
}

/** A recording read back: its requests as 0.4 rebuilt them, and more. */
export interface WholeRequests {
  /** The requests, each with its whole body (the oracle). */
  readonly requests: ReportedRequest[];
  /** The cache rules the recording's report follows by default. */
  readonly provider: CacheProvider;
  /** The requests as the report rebuilds them now (`recordedRequests`). */
  readonly rebuilt: ReportedRequest[];
}

/** The requests of `recording`, a recording of `provider`'s wire. */
export function wholeRequests(
  recording: string,
  provider: string,
): WholeRequests {
  const { header, steps } = parseRecording(recording, provider);
  const read = readerOf(provider);
  // Usage, time and contributor as the report reads them; the bodies
  // are the oracle's.
  const form = formOf(provider);
  const rebuilt = recordedRequests(header, steps, form, read);
  const layout = LAYOUTS[provider];
  let history: unknown[] = [];
  let head: Json = {};
  const requests = steps.map((step, index) => {
    if (step.head !== undefined) head = step.head;
    const sent = [...history, ...step.tail];
    const body = layout(head, sent, step.marks);
    history = [...sent, ...read(step.response)];
    return { ...rebuilt[index], body };
  });
  return {
    requests,
    provider: form.cache.rulesOf(header.options).id as CacheProvider,
    rebuilt,
  };
}
