/**
 * SPEC 9.3, 10.4: the conversation's report reads each message of its
 * recording once (the bodies a session sends grow, and rebuilding each
 * whole made the report quadratic), and gives what `cacheReport` gives
 * over the whole bodies, rebuilt as 0.4 rebuilt them: for random sessions
 * of every form (tool-list, gate and runtime-context changes, parallel
 * calls, lapses, any usage) under each cache model, for long recordings
 * with registry changes, and when the simulator refuses the recording.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { cacheReport } from "../../adapters/cache/mod.ts";
import type { CacheProvider } from "../../adapters/cache/mod.ts";
import { fuzzRuns } from "../fuzz_runs.ts";
import { agent } from "./helpers.ts";
import { type AnyConversation, type Form, FORMS } from "./forms.ts";
import { applyStep, sessionArbitrary, type SessionStep } from "./session.ts";
import { wholeRequests } from "./whole_bodies.ts";
import { LONG_FORMS, longRecording } from "./long_recording.ts";
import { resumeAnthropicConversation } from "../../adapters/anthropic/mod.ts";
import {
  resumeChatConversation,
  resumeResponsesConversation,
} from "../../adapters/openai/mod.ts";
import { resumeAiSdkConversation } from "../../adapters/ai_sdk/mod.ts";

const countTokens = (text: string): number => text.length;
const MINIMUM = 100;

/** The wire each form's recording names. */
const PROVIDERS: Record<string, string> = {
  "anthropic": "anthropic-messages",
  "anthropic-inline": "anthropic-messages",
  "openai-chat": "openai-chat",
  "openai-responses": "openai-responses",
  "openai-responses-inline": "openai-responses",
  "ai-sdk": "ai-sdk",
  "bedrock-converse": "bedrock-converse",
  gemini: "gemini",
  "chat": "openai-chat",
  "responses": "openai-responses",
};

/** The cache models each wire's report is asked for (none: its own). */
function modelsOf(provider: string): (CacheProvider | undefined)[] {
  return provider.startsWith("openai")
    ? [undefined, "openai", "openai-explicit", "anthropic"]
    : [undefined, "openai"];
}

/** What the provider reports of one answer, and the time before it. */
interface Figures {
  readonly read: number;
  readonly written: number;
  readonly uncached: number;
  readonly gap: number;
}

const figuresArbitrary: fc.Arbitrary<Figures[]> = fc.array(
  fc.record({
    read: fc.nat(4000),
    written: fc.nat(600),
    uncached: fc.nat(300),
    gap: fc.constantFrom(2_000, 40_000, 400_000, 4_000_000),
  }),
  { minLength: 1, maxLength: 8 },
);

/** The answer with the usage in its SDK's shape. */
function withUsage(provider: string, answer: object, f: Figures): never {
  const input = f.uncached + f.read + f.written;
  const usage = {
    "anthropic-messages": {
      input_tokens: f.uncached,
      cache_read_input_tokens: f.read,
      cache_creation_input_tokens: f.written,
      output_tokens: 5,
    },
    "openai-chat": {
      prompt_tokens: input,
      completion_tokens: 5,
      total_tokens: input + 5,
      prompt_tokens_details: { cached_tokens: f.read },
    },
    "openai-responses": {
      input_tokens: input,
      input_tokens_details: { cached_tokens: f.read },
      output_tokens: 5,
      total_tokens: input + 5,
    },
    "bedrock-converse": {
      inputTokens: f.uncached,
      cacheReadInputTokens: f.read,
      cacheWriteInputTokens: f.written,
      outputTokens: 5,
      totalTokens: input + 5,
    },
    gemini: {
      promptTokenCount: input,
      cachedContentTokenCount: f.read,
      candidatesTokenCount: 5,
      thoughtsTokenCount: 0,
    },
    "ai-sdk": {
      inputTokens: input,
      outputTokens: 5,
      inputTokenDetails: {
        noCacheTokens: f.uncached,
        cacheReadTokens: f.read,
        cacheWriteTokens: f.written,
      },
    },
  }[provider];
  return (provider === "gemini"
    ? { ...answer, usageMetadata: usage }
    : { ...answer, usage }) as never;
}

/** Plays the session through the form, the clock moved by the figures. */
async function play(
  form: Form,
  steps: readonly SessionStep[],
  figures: readonly Figures[],
): Promise<AnyConversation> {
  const a = agent();
  let now = 1_000_000;
  const conv = form.start(a.prompt, { clock: () => now });
  conv.user("Start.");
  let n = 0;
  try {
    for (const [index, step] of steps.entries()) {
      const f = figures[index % figures.length];
      applyStep(a, step);
      if (step.say !== undefined) conv.user(step.say);
      now += f.gap;
      await conv.request(undefined, { awaiting: step.awaiting });
      const calls = step.calls.map((name) => ({ id: `call_${n++}`, name }));
      conv.record(withUsage(PROVIDERS[form.name], form.answer(calls), f));
      for (const call of conv.openCalls) {
        conv.toolResult(call.id, `ran ${call.name}`);
      }
      if (step.calls.length === 0) conv.user("Next.");
    }
  } finally {
    await a.prompt.dispose();
  }
  return conv;
}

/**
 * A conversation's report without what only a recording tells: the
 * changes each request told inline (`inline_report_test.ts`).
 */
function besidesInline(report: unknown): unknown {
  const { requests, ...rest } = report as {
    requests: { inline?: unknown }[];
  };
  return {
    ...rest,
    requests: requests.map(({ inline: _inline, ...request }) => request),
  };
}

/** The report of `conv` is cacheReport's of its whole bodies, every model. */
function assertReportsAgree(
  conv: Pick<AnyConversation, "save"> & {
    report(options: object): unknown;
  },
  provider: string,
): void {
  const whole = wholeRequests(conv.save(), provider);
  assert.deepEqual(
    whole.rebuilt.map((request) => JSON.stringify(request.body)),
    whole.requests.map((request) => JSON.stringify(request.body)),
  );
  for (const model of modelsOf(provider)) {
    const options = { countTokens, minPrefixTokens: MINIMUM };
    assert.deepEqual(
      besidesInline(conv.report(
        model === undefined ? options : { ...options, provider: model },
      )),
      cacheReport(whole.requests, {
        ...options,
        provider: model ?? whole.provider,
      }),
      `the report under ${model ?? "the wire's own"} cache rules`,
    );
  }
}

const NO_PROMPT = {
  assemble: () => Promise.reject(new Error("not assembled")),
};

/** A recording resumed as the conversation of its form. */
function resumed(
  form: string,
  text: string,
): { save(): string; report(options: object): unknown } {
  switch (form) {
    case "anthropic":
      return resumeAnthropicConversation(NO_PROMPT, text) as never;
    case "chat":
      return resumeChatConversation(NO_PROMPT, text) as never;
    case "responses":
      return resumeResponsesConversation(NO_PROMPT, text) as never;
    default:
      return resumeAiSdkConversation(NO_PROMPT, text) as never;
  }
}

describe("conversation report over growing bodies", () => {
  for (const form of FORMS) {
    it(`${form.name}: report() is cacheReport of the whole bodies, random sessions`, async () => {
      await fc.assert(
        fc.asyncProperty(
          sessionArbitrary,
          figuresArbitrary,
          async (steps, figures) => {
            const conv = await play(form, steps, figures);
            assertReportsAgree(
              conv as unknown as Parameters<typeof assertReportsAgree>[0],
              PROVIDERS[form.name],
            );
          },
        ),
        { numRuns: fuzzRuns(25), seed: 4_906_101 },
      );
    });
  }

  for (const form of LONG_FORMS) {
    it(`${form}: a long recording (registry changes, lapses) reports as its whole bodies`, async () => {
      const { text } = await longRecording(form, 160, { lapseEvery: 50 });
      assertReportsAgree(resumed(form, text), PROVIDERS[form]);
    });
  }

  it("ai-sdk: a body that ends with the model's message lays it out as the last", async () => {
    // The provider trims the last assistant text; once the person answers
    // it is sent whole, so the shared history must not keep the trimmed one.
    const form = FORMS.find((candidate) => candidate.name === "ai-sdk")!;
    const a = agent();
    let now = 1_000_000;
    const conv = form.start(a.prompt, { clock: () => now });
    const answer = (text: string) =>
      withUsage("ai-sdk", {
        response: {
          messages: [{ role: "assistant", content: [{ type: "text", text }] }],
        },
      }, { read: 40, written: 10, uncached: 5, gap: 0 });
    try {
      conv.user("Start.");
      for (const text of ["Done.  ", "  And more.  ", "Last. "]) {
        now += 10_000;
        await conv.request();
        conv.record(answer(text));
      }
      conv.user("Thanks.");
      now += 10_000;
      await conv.request();
      conv.record(answer("Bye. "));
    } finally {
      await a.prompt.dispose();
    }
    assertReportsAgree(
      conv as unknown as Parameters<typeof assertReportsAgree>[0],
      "ai-sdk",
    );
  });

  it("reports as cacheReport does when the simulator refuses the recording", async () => {
    const { text } = await longRecording("anthropic", 12);
    const conv = resumed("anthropic", text);
    const whole = wholeRequests(text, "anthropic-messages");
    // Not a count: the simulator refuses it, the judgements stand.
    const options = { countTokens: () => 0.5, minPrefixTokens: MINIMUM };
    const report = conv.report(options) as ReturnType<typeof cacheReport>;
    assert.match(report.totals.estimateError ?? "", /countTokens returned 0.5/);
    assert.deepEqual(
      besidesInline(report),
      cacheReport(whole.requests, { ...options, provider: "anthropic" }),
    );
  });
});
