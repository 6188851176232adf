/**
 * What the conversation's report reads from its recording (SPEC 9.3,
 * 9.8): each committed step's whole body rebuilt from the step's tail,
 * head and marks, what the provider reported, when, and the registration
 * behind a change; and the provenance a step records. Pure: the shell
 * (`conversation.ts`) and `rxprompt report` call it with the wire's reading
 * of an answer.
 *
 * @module
 */

import { SystemPromptError } from "../errors.ts";
import { aiSdkWireBody } from "./ai_sdk_body.ts";
import type { PromptExplanation } from "../explain/explanation.ts";
import { renderPromptBlocks } from "../render/blocks.ts";
import { readReportedUsage } from "../cache/reported.ts";
import type { ReportedUsage, UsageSource } from "../cache/reported_types.ts";
import type { ReportedRequest } from "../cache/report_types.ts";
import type { CacheProvider } from "../cache/types.ts";
import type {
  RecordingHeader,
  RecordingOrigin,
  RecordingProvenance,
  RecordingStep,
} from "./recording.ts";

/** The usage reader of each wire. */
const SOURCES: Readonly<Record<string, UsageSource>> = {
  "anthropic-messages": "anthropic",
  "openai-chat": "openai-chat",
  "openai-responses": "openai-responses",
  "ai-sdk": "ai-sdk",
};

/** The wire's usage source for `readReportedUsage`. */
export function usageSourceOf(provider: string): UsageSource {
  return SOURCES[provider] ?? "anthropic";
}

/**
 * The cache model a recording's wire follows: Anthropic's, OpenAI's
 * explicit breakpoints (the `cache` option) or its automatic cache;
 * `undefined` for the AI SDK, whose request bodies are call options, not
 * a provider's wire (its report reads them as Anthropic bodies:
 * {@linkcode reportProviderOf}).
 */
export function cacheProviderOf(
  header: Pick<RecordingHeader, "provider" | "options">,
): CacheProvider | undefined {
  switch (header.provider) {
    case "anthropic-messages":
      return "anthropic";
    case "openai-chat":
    case "openai-responses":
      return header.options.cache === undefined ? "openai" : "openai-explicit";
    default:
      return undefined;
  }
}

/**
 * The cache model a recording's report follows: the wire's, and
 * Anthropic's for the AI SDK, whose steps the report lays out as the
 * Anthropic bodies `@ai-sdk/anthropic` sends (its marks are Anthropic's).
 */
export function reportProviderOf(
  header: Pick<RecordingHeader, "provider" | "options">,
): CacheProvider {
  return cacheProviderOf(header) ?? "anthropic";
}

/** What a step's usage reads as: kept at record time, else read again. */
export function reportedOf(
  step: RecordingStep,
  source: UsageSource,
): ReportedUsage {
  if (isObject(step.reported) && isObject(step.reported.diagnosis)) {
    return step.reported as unknown as ReportedUsage;
  }
  return readReportedUsage(step.response, source);
}

/** The provenance of an explained assembly's system blocks and tools. */
export function provenanceOf(
  explanation: PromptExplanation,
): RecordingProvenance {
  const origin = (
    entry: PromptExplanation["tools"][number],
  ): RecordingOrigin => ({
    name: entry.name,
    ...(entry.registrar === undefined ? {} : { registrar: entry.registrar }),
    layer: entry.layer,
    ...(entry.scope === undefined ? {} : { scope: entry.scope }),
    ...(entry.stability === undefined ? {} : { stability: entry.stability }),
  });
  const sections = new Map(
    explanation.sections.map((entry) => [entry.name, entry]),
  );
  let blocks: { sections: RecordingOrigin[] }[] = [];
  try {
    blocks = renderPromptBlocks(explanation.assembly).map((block) => ({
      sections: block.sections.map((name) => {
        const found = sections.get(name);
        return found === undefined
          ? { name, layer: "listener" as const }
          : origin(found as PromptExplanation["tools"][number]);
      }),
    }));
  } catch {
    // An assembly that does not render has no blocks to name.
  }
  return { system: blocks, tools: explanation.tools.map(origin) };
}

/**
 * The requests of a recording as `cacheReport` takes them: each step's
 * whole body (its head, the history so far and its tail, the marks put
 * back), its reported usage, its time and the contributor it recorded.
 * `read` gives the messages an answer added to the history (the wire's).
 * An AI SDK step's body is the Anthropic body `@ai-sdk/anthropic` sends.
 *
 * @throws {SystemPromptError} `RECORDING_OTHER_PROVIDER` for a recording
 * of none of the four wires
 */
export function recordedRequests(
  header: RecordingHeader,
  steps: readonly RecordingStep[],
  read: (response: unknown) => readonly unknown[],
): ReportedRequest[] {
  const layout = LAYOUTS[header.provider];
  if (layout === undefined) {
    throw new SystemPromptError(
      "RECORDING_OTHER_PROVIDER",
      `A cache report reads a recording of an anthropic-messages, ` +
        `openai-chat, openai-responses or ai-sdk conversation; this one is ` +
        `of a ${JSON.stringify(header.provider)} conversation.`,
    );
  }
  const source = usageSourceOf(header.provider);
  let history: unknown[] = [];
  let head: Record<string, unknown> = {};
  const requests: ReportedRequest[] = [];
  for (const step of steps) {
    if (step.head !== undefined) head = step.head;
    const sent = [...history, ...step.tail];
    const time = Date.parse(step.sent ?? step.time);
    const request: ReportedRequest = {
      body: layout(head, sent, step.marks),
      usage: reportedOf(step, source),
      thread: header.session,
    };
    if (!Number.isNaN(time)) request.time = time;
    if (step.contributor !== undefined) request.contributor = step.contributor;
    requests.push(request);
    history = [...sent, ...read(step.response)];
  }
  return requests;
}

type Layout = (
  head: Record<string, unknown>,
  history: readonly unknown[],
  marks: RecordingStep["marks"],
) => Record<string, unknown>;

/** How each wire lays its head and history out, and where marks go. */
const LAYOUTS: Readonly<Record<string, Layout>> = {
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
};

/** The items with each mark put back on its part (`content` or `output`). */
function marked(
  items: readonly unknown[],
  marks: RecordingStep["marks"],
  key: string,
): unknown[] {
  const result = [...items];
  for (const { message, block, mark } of marks) {
    const item = result[message];
    if (!isObject(item)) continue;
    const field = Array.isArray(item.content) ? "content" : "output";
    const parts = item[field];
    if (!Array.isArray(parts) || !isObject(parts[block])) continue;
    const copy = [...parts];
    copy[block] = { ...parts[block], [key]: mark };
    result[message] = { ...item, [field]: copy };
  }
  return result;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
