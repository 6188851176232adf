/**
 * What the conversation's report reads from its recording (SPEC 9.3,
 * 9.8): each committed step's whole body rebuilt from the step's tail,
 * head and marks, what the provider reported, when, and the registration
 * behind a change; and the provenance a step records. Pure: the shell
 * (`conversation.ts`) and `rxprompt report` call it with the form's reading
 * of an answer.
 *
 * @module
 */

import { type GrowingRequest, wholeBody } from "../cache/report/growing.ts";
import type { PromptExplanation } from "../explain/explanation.ts";
import { renderPromptBlocks } from "../render/blocks.ts";
import type { ReportedUsage } from "../cache/report/usage_types.ts";
import type { ReportedRequest } from "../cache/report/types.ts";
import type { ConversationForm } from "./form.ts";
import type {
  RecordingHeader,
  RecordingOrigin,
  RecordingProvenance,
  RecordingStep,
} from "./recording.ts";

/** What a step's usage reads as: kept at record time, else read again. */
export function reportedOf(
  step: RecordingStep,
  form: Pick<ConversationForm, "readUsage">,
): ReportedUsage {
  if (isObject(step.reported) && isObject(step.reported.diagnosis)) {
    return step.reported as unknown as ReportedUsage;
  }
  return form.readUsage(step.response);
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
 * `read` gives the items an answer added to the history (the form's).
 */
export function recordedRequests(
  header: RecordingHeader,
  steps: readonly RecordingStep[],
  form: ConversationForm,
  read: (response: unknown) => readonly unknown[],
): ReportedRequest[] {
  return growingRequests(header, steps, form, read).map((request) => ({
    ...request,
    body: wholeBody(request.body),
  }));
}

/**
 * The requests of a recording as `growingCacheReport` takes them: each
 * step's body as the history the steps share, grown by the step's tail,
 * with the step's marked items and head (the form's layout); its reported
 * usage, its time and the contributor it recorded. Linear in the
 * recording: each item is laid out once (a marked one again for the step
 * that marks it).
 */
export function growingRequests(
  header: RecordingHeader,
  steps: readonly RecordingStep[],
  form: ConversationForm,
  read: (response: unknown) => readonly unknown[],
): GrowingRequest[] {
  let layout = form.layout();
  let head: Record<string, unknown> = {};
  const requests: GrowingRequest[] = [];
  // The history as sent, by reference: a compaction lays part of it out
  // again (its request, or the start a swap gives the history).
  let history: unknown[] = [];
  let compaction: { at: number; start: readonly unknown[] } | undefined;
  let compacted = false;
  const restart = (items: unknown[]) => {
    history = items;
    layout = form.layout();
    layout.answered(items);
    compacted = true;
  };
  for (const step of steps) {
    if (step.swap !== undefined && compaction !== undefined) {
      const carried = history.slice(compaction.at).flatMap((item) => {
        const kept = form.compaction?.unbound(item as never);
        return kept === undefined ? [] : [kept];
      });
      restart([...compaction.start, ...carried]);
      compaction = undefined;
    }
    if (step.head !== undefined) head = step.head;
    const time = Date.parse(step.sent ?? step.time);
    const base = {
      usage: reportedOf(step, form),
      thread: header.session,
      ...(Number.isNaN(time) ? {} : { time }),
      ...(step.contributor === undefined
        ? {}
        : { contributor: step.contributor }),
    };
    if (step.kind === "compaction") {
      // Its request: the history it summarized, then its own tail.
      const aside = form.layout();
      aside.answered(history.slice(0, step.at));
      requests.push({
        ...base,
        body: aside.request(head, step.tail, step.marks),
        summarizes: true,
      });
      compaction = { at: step.at, start: compactionStart(step) };
      continue;
    }
    requests.push({
      ...base,
      body: layout.request(head, step.tail, step.marks),
      // The provider compacting inside the step counts as its rewrite.
      ...(compacted || step.compacted === true ? { compacted: true } : {}),
    });
    compacted = false;
    const answer = read(step.response);
    for (const item of step.tail) history.push(item);
    for (const item of answer) history.push(item);
    layout.answered(answer);
    if (step.compacted === true) {
      const from = form.readAnswer(step.response, () => {}).compactedFrom;
      if (from !== undefined) restart(answer.slice(from));
    }
  }
  return requests;
}

/** The history a recorded compaction starts (its `start`). */
function compactionStart(step: RecordingStep): readonly unknown[] {
  return Array.isArray(step.start) ? step.start : [];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
