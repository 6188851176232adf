/**
 * What `record()` reads of an answer besides the history (SPEC 9.3, 9.8):
 * the usage and the provider's diagnosis, the provenance of the step's
 * system blocks and tools and the registration behind a change; and the
 * conversation's report over its recording. Pure, and never throws on
 * what the provider reported.
 *
 * @module
 */

import { SystemPromptError } from "../errors.ts";
import type { PromptExplanation } from "../explain/explanation.ts";
import { attributeChange } from "../cache/report/contributor.ts";
import { growingCacheReport } from "../cache/report/report.ts";
import type { ReportedUsage } from "../cache/report/usage_types.ts";
import type {
  CacheContributor,
  PromptCacheReport,
} from "../cache/report/types.ts";
import type {
  RecordingHeader,
  RecordingProvenance,
  RecordingStep,
} from "./recording.ts";
import { growingRequests, provenanceOf, reportedOf } from "./report.ts";
import { deferredReport } from "./deferred_report.ts";
import { withTransformations } from "./transformations.ts";
import { withInlineChanges } from "./inline_report.ts";
import { type KeptStep, KeptSteps, readsAgain } from "./kept_steps.ts";
import { copyAnswer } from "./checks.ts";
import type { ConversationForm } from "./form.ts";
import type { RuleTable } from "../cache/simulator/rules.ts";
import type {
  ConversationObserver,
  ConversationReportOptions,
  ConversationRequest,
} from "./observer_types.ts";

/** Where what an observer throws goes (the `onObserverError` option). */
export type ObserverErrorReporter = (
  error: unknown,
  observer: ConversationObserver,
) => void;

/**
 * Calls an observer: what it throws goes to `report` (and what `report`
 * throws to the console), never to the caller, as the registry's
 * `change$` subscribers' errors go to `onSubscriberError`.
 */
export function callObserver(
  observer: ConversationObserver,
  call: () => void,
  report: ObserverErrorReporter,
): void {
  try {
    call();
  } catch (error) {
    try {
      report(error, observer);
    } catch (reportError) {
      try {
        console.error("onObserverError threw", reportError, error);
      } catch {
        // Nothing is left to report through.
      }
    }
  }
}

/** The default `onObserverError`. */
export function reportToConsole(
  error: unknown,
  observer: ConversationObserver,
): void {
  console.error(`The conversation's ${observer} threw`, error);
}

/**
 * The conversation's record of what the provider reported (internal):
 * the committed steps, the last answer's id (what the next diagnosis
 * compares with), the last explanation and provenance, and the
 * `onRequest` observer.
 */
export class Observer {
  readonly #form: ConversationForm;
  readonly #kept: KeptSteps;
  readonly onRequest: ((request: ConversationRequest) => void) | undefined;
  readonly onError: ObserverErrorReporter;
  /** The last answer's id, or `null` before the first. */
  previousId: string | null = null;
  #explanation: PromptExplanation | undefined;
  #provenanceKey: string | undefined;
  #previous: ConversationRequest["previous"];

  constructor(
    form: ConversationForm,
    observers: {
      onRequest: ((request: ConversationRequest) => void) | undefined;
      onError: ObserverErrorReporter | undefined;
    },
  ) {
    this.#form = form;
    this.#kept = new KeptSteps((response) => reportedUsage(response, form));
    this.onRequest = observers.onRequest;
    this.onError = observers.onError ?? reportToConsole;
  }

  /** The committed steps, in order (resumed ones first). */
  get kept(): KeptSteps {
    return this.#kept;
  }

  /** Takes over a resumed recording's steps. */
  resume(steps: readonly RecordingStep[]): void {
    this.#kept.resume(steps);
    const last = steps.at(-1);
    if (last !== undefined) {
      this.previousId = reportedOf(last, this.#form).responseId ?? null;
    }
    for (let index = steps.length - 1; index >= 0; index--) {
      const provenance = steps[index].provenance;
      if (provenance !== undefined) {
        this.#provenanceKey = JSON.stringify(provenance);
        break;
      }
    }
  }

  /** What the step about to be committed records of its answer. */
  observe(
    answer: unknown,
    explanation: PromptExplanation | undefined,
  ): Observed {
    const observed = observe(answer, this.#form, {
      current: explanation,
      previous: this.#explanation,
      provenanceKey: this.#provenanceKey,
    });
    const copied = this.#form.recordOf === copyAnswer;
    return readsAgain(answer, observed.reported, copied)
      ? { ...observed, readAgain: true }
      : observed;
  }

  /** Keeps a committed step and gives `onRequest` its request. */
  committed(
    step: KeptStep,
    observed: Observed,
    request: {
      session: string;
      /** The recording's header (read only for `onRequest`). */
      header: () => RecordingHeader;
      body: unknown;
      explanation: PromptExplanation | undefined;
      sentAt: number;
      time: number;
    },
  ): void {
    this.#kept.push(step);
    this.previousId = observed.reported.responseId ?? null;
    this.#explanation = request.explanation;
    this.#provenanceKey = observed.provenanceKey ?? this.#provenanceKey;
    const onRequest = this.onRequest;
    // Without an observer the last body is not kept: its list holds the
    // whole history, which would outlive the step.
    if (onRequest === undefined) return;
    const previous = this.#previous;
    const explained = request.explanation === undefined
      ? {}
      : { explanation: request.explanation };
    this.#previous = {
      body: request.body,
      usage: observed.reported,
      time: request.sentAt,
      ...explained,
    };
    const header = request.header();
    const cache = this.#form.cache;
    const cacheProvider = cache.liveBodyIsWire
      ? cache.rulesOf(header.options).id
      : undefined;
    callObserver("onRequest", () =>
      onRequest({
        session: request.session,
        step: step.step,
        form: header.form ?? header.provider ?? "",
        ...(cacheProvider === undefined ? {} : { cacheProvider }),
        body: request.body,
        usage: observed.reported,
        sentAt: request.sentAt,
        time: request.time,
        ...explained,
        ...(previous === undefined ? {} : { previous }),
      }), this.onError);
  }

  /** The cache report of the committed steps. */
  report(
    header: RecordingHeader,
    read: (response: unknown) => readonly unknown[],
    options: ConversationReportOptions,
    rules: RuleTable,
  ): PromptCacheReport {
    return conversationReport(header, this.#kept.all(), {
      form: this.#form,
      read,
      rules,
    }, options);
  }
}

/** What a step records of its answer and assembly. */
export interface Observed {
  readonly reported: ReportedUsage;
  /** The provenance, when it changed since the last step's. */
  readonly provenance?: RecordingProvenance;
  /** The provenance's JSON (to compare the next step's with). */
  readonly provenanceKey?: string;
  readonly contributor?: CacheContributor;
  /**
   * The step leaves `reported` out: its line reads it again from the
   * answer's JSON copy (`readsAgain`).
   */
  readonly readAgain?: true;
}

/**
 * Reads the answer's usage and diagnosis (never throws: a payload of the
 * wrong shape is `unknown` with its raw value) and, with explanations,
 * the provenance and the registration behind a change.
 */
export function observe(
  answer: unknown,
  form: Pick<ConversationForm, "id" | "readUsage">,
  explanations: {
    readonly current: PromptExplanation | undefined;
    readonly previous: PromptExplanation | undefined;
    readonly provenanceKey: string | undefined;
  },
): Observed {
  const reported = reportedUsage(answer, form);
  const { current, previous } = explanations;
  if (current === undefined) return { reported };
  let provenance: RecordingProvenance | undefined;
  let contributor: CacheContributor | undefined;
  try {
    provenance = provenanceOf(current);
    if (previous !== undefined) {
      contributor = attributeChange(previous, current);
    }
  } catch {
    // Provenance is a help for the report: an explanation it cannot read
    // leaves it out, the step is still recorded.
  }
  const key = provenance === undefined ? undefined : JSON.stringify(provenance);
  return {
    reported,
    ...(provenance !== undefined && key !== explanations.provenanceKey
      ? { provenance }
      : {}),
    ...(key === undefined ? {} : { provenanceKey: key }),
    ...(contributor === undefined ? {} : { contributor }),
  };
}

/**
 * The answer's usage and diagnosis as the form reads them; a payload of
 * the wrong shape is `unknown` with its raw value (never throws).
 */
export function reportedUsage(
  answer: unknown,
  form: Pick<ConversationForm, "id" | "readUsage">,
): ReportedUsage {
  try {
    return form.readUsage(answer);
  } catch {
    return {
      source: form.id,
      diagnosis: { status: "unknown", raw: rawOf(answer) },
    } as ReportedUsage;
  }
}

/**
 * `read` once per answer: the report's parts (the bodies, the dropped
 * blocks, the deferred tools) each read every step's answer.
 */
function readOnce(
  read: (response: unknown) => readonly unknown[],
): (response: unknown) => readonly unknown[] {
  const items = new WeakMap<object, readonly unknown[]>();
  return (response) => {
    if (typeof response !== "object" || response === null) {
      return read(response);
    }
    let answered = items.get(response);
    if (answered === undefined) {
      answered = read(response);
      items.set(response, answered);
    }
    return answered;
  };
}

/** The answer's usage and diagnosis as plain JSON, for `raw`. */
function rawOf(answer: unknown): unknown {
  try {
    const value = answer as { usage?: unknown; diagnostics?: unknown };
    return JSON.parse(
      JSON.stringify({ usage: value?.usage, diagnostics: value?.diagnostics }),
    );
  } catch {
    return null;
  }
}

/**
 * The cache report of a recording's steps (`cacheReport`), the provider
 * taken from the header unless the options name one.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` for options `cacheReport`
 * refuses
 */
export function conversationReport(
  header: RecordingHeader,
  steps: readonly RecordingStep[],
  { form, read, rules }: {
    readonly form: ConversationForm;
    /** The items an answer added to the history. */
    readonly read: (response: unknown) => readonly unknown[];
    /** Every provider's rules, `options.provider` among them. */
    readonly rules: RuleTable;
  },
  options: ConversationReportOptions,
): PromptCacheReport {
  if (typeof options !== "object" || options === null) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      "report() needs options { countTokens, prices?, minPrefixTokens? }",
    );
  }
  read = readOnce(read);
  const requests = growingRequests(header, steps, form, read);
  const provider = options.provider ??
    form.cache.rulesOf(header.options).id;
  const report = withInlineChanges(
    withTransformations(
      growingCacheReport(requests, { ...options, provider }, rules),
      steps,
      requests.map((request) => request.usage),
      read,
    ),
    steps,
    form.compaction?.keepsTools === true,
  );
  const deferred = deferredReport(steps, {
    read,
    countTokens: options.countTokens,
  });
  const storage = form.storage?.(steps, header.options);
  return {
    ...report,
    ...(deferred === undefined ? {} : { deferred }),
    ...(storage === undefined ? {} : { storage }),
  };
}
