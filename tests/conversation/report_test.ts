/**
 * SPEC 9.3, 9.8: `record()` reads what the provider reported (never
 * throwing on a malformed payload), the recording keeps it with the
 * provenance, and `conv.report()` gives each miss its verdict and
 * contributor, with the observed and simulated totals.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  anthropicConversation,
  resumeAnthropicConversation,
} from "../../adapters/anthropic/mod.ts";
import { chatConversation } from "../../adapters/openai/mod.ts";
import {
  type ConversationRequest,
  type RecordingStep,
  SystemPrompt,
  SystemPromptError,
} from "../../mod.ts";
import { parseRecording } from "../../src/conversation/recording.ts";
import { recordedRequests } from "../../src/conversation/report.ts";
import { MESSAGES_FORM } from "../../adapters/anthropic/form.ts";
import {
  agent,
  anthropicUsageOf,
  countTokens,
  SESSION,
  VERDICTS,
} from "./report_session.ts";

const OPTIONS = { model: "claude-sonnet-4-5", max_tokens: 1024 };

function answer(id: string, usage: unknown, diagnostics?: unknown) {
  return {
    id,
    type: "message",
    role: "assistant" as const,
    model: "claude-sonnet-4-5",
    content: [{ type: "text", text: `Done (${id}).` }],
    usage,
    ...(diagnostics === undefined ? {} : { diagnostics }),
  };
}

/** Runs the session through an Anthropic conversation. */
async function runSession(options: { diagnostics: boolean }) {
  const { prompt, state } = agent();
  let now = 1_000_000;
  const seen: ConversationRequest[] = [];
  // 0.4's bytes: the system prompt rebuilt, so the session's change of
  // the git section is a layout miss the report must explain.
  const conv = anthropicConversation(prompt, {
    ...OPTIONS,
    changes: "rebuild",
    diagnostics: options.diagnostics,
    clock: () => now,
    onRequest: (request) => seen.push(request),
  });
  const sent: { body: unknown; time: number }[] = [];
  for (const [index, step] of SESSION.entries()) {
    step.change?.(state);
    now = 1_000_000 + step.time;
    conv.user(step.question);
    const body = await conv.request();
    sent.push({ body, time: step.time });
    conv.record(
      answer(`msg_${index}`, anthropicUsageOf(sent, step.evicted === true), {
        cache_miss_reason: step.reason,
      }),
    );
  }
  return { prompt, conv, seen };
}

describe("conversation report", () => {
  it("gives each miss of the session its verdict and contributor", async () => {
    const { prompt, conv, seen } = await runSession({ diagnostics: true });
    try {
      const report = conv.report({ countTokens });
      const judgements = report.requests.map((request) => request.judgement);
      assert.deepEqual(
        judgements.map((judgement) =>
          judgement?.missed ? judgement.verdict : undefined
        ),
        VERDICTS,
      );
      assert.equal(judgements[2]?.contributor?.name, "git");
      assert.equal(judgements[2]?.contributor?.registrar, "registry/git");
      assert.equal(judgements[2]?.contributor?.variable?.name, "branch");
      assert.equal(judgements[2]?.provider.reason, "system_changed");
      assert.equal(judgements[3]?.contributor?.name, "browse");
      assert.equal(judgements[3]?.contributor?.registrar, "registry/mcp");
      assert.equal(judgements[3]?.provider.reason, "tools_changed");
      assert.equal(judgements[4]?.expired, true);
      assert.equal(judgements[5]?.expired, false);
      assert.ok(report.totals.estimate !== undefined);
      assert.equal(report.totals.differsFromEstimate, true);
      assert.equal(report.requests[5].differsFromEstimate, true);
      assert.ok(report.totals.rewriteFactor! > 1);
      // onRequest saw every committed request, each after the first with
      // the one before it.
      assert.deepEqual(seen.map((request) => request.step), [1, 2, 3, 4, 5, 6]);
      assert.equal(seen[0].previous, undefined);
      assert.equal(seen[3].previous?.body, seen[2].body);
      assert.equal(seen[2].cacheProvider, "anthropic");
      assert.ok(seen[2].explanation !== undefined);
    } finally {
      await prompt.dispose();
    }
  });

  it("records the reported usage, the provenance when it changes and the contributor", async () => {
    const { prompt, conv } = await runSession({ diagnostics: true });
    try {
      const steps = conv.save().trim().split("\n").slice(1).map((line) =>
        JSON.parse(line) as RecordingStep
      );
      assert.equal(steps[2].reported?.diagnosis.reason, "system_changed");
      assert.equal(steps[0].reported?.responseId, "msg_0");
      // Provenance on the first step, then only where it changed.
      assert.deepEqual(
        steps.map((step) => step.provenance !== undefined),
        [true, false, false, true, false, false],
      );
      const tools = steps[3].provenance!.tools.map((tool) =>
        `${tool.registrar}:${tool.name}`
      );
      assert.ok(tools.includes("registry/mcp:browse"));
      assert.equal(
        steps[0].provenance!.system[0].sections[0].registrar,
        "registry",
      );
      assert.equal(steps[2].contributor?.name, "git");
      assert.equal(steps[1].contributor, undefined);
      assert.equal(
        steps[4].sent,
        new Date(1_000_000 + SESSION[4].time).toISOString(),
      );
      // Saved with the conversation: the header keeps the option.
      const header = JSON.parse(conv.save().split("\n")[0]);
      assert.equal(header.options.diagnostics, true);
    } finally {
      await prompt.dispose();
    }
  });

  it("without diagnostics: the verdicts stand, no contributor, assemble() only", async () => {
    const { prompt, conv, seen } = await runSession({ diagnostics: false });
    try {
      const report = conv.report({ countTokens });
      assert.deepEqual(
        report.requests.map((request) =>
          request.judgement?.missed ? request.judgement.verdict : undefined
        ),
        VERDICTS,
      );
      assert.equal(report.requests[2].judgement?.contributor, undefined);
      assert.equal(seen[2].explanation, undefined);
      assert.ok(!conv.save().includes('"provenance"'));
    } finally {
      await prompt.dispose();
    }
  });

  it("never throws out of record() on malformed usage or diagnosis", async () => {
    const prompt = new SystemPrompt({ persona: "You are terse." });
    const conv = anthropicConversation(prompt, {
      ...OPTIONS,
      diagnostics: true,
    });
    const payloads: [unknown, unknown][] = [
      [{ input_tokens: "12", cache_read_input_tokens: null }, undefined],
      [null, { cache_miss_reason: { type: "moon_phase_changed" } }],
      [42, "not a diagnosis"],
      [{ input_tokens: 5 }, { cache_miss_reason: 7 }],
    ];
    for (const [index, [usage, diagnostics]] of payloads.entries()) {
      conv.user(`Step ${index}.`);
      await conv.request();
      conv.record(answer(`m${index}`, usage, diagnostics));
    }
    const steps = conv.save().trim().split("\n").slice(1).map((line) =>
      JSON.parse(line) as RecordingStep
    );
    assert.deepEqual(steps[0].reported?.malformed?.[0], {
      field: "usage.input_tokens",
      raw: "12",
    });
    assert.equal(steps[1].reported?.diagnosis.status, "unknown");
    assert.deepEqual(steps[1].reported?.diagnosis.raw, {
      type: "moon_phase_changed",
    });
    assert.equal(steps[2].reported?.inputTokens, undefined);
    assert.equal(steps[3].reported?.diagnosis.status, "unknown");
    const report = conv.report({ countTokens });
    assert.equal(report.requests.length, 4);
    assert.ok(report.totals.unreadableRequests >= 2);
    await prompt.dispose();
  });

  it("ignores what onRequest throws, and rejects bad options", async () => {
    const prompt = new SystemPrompt({ persona: "You are terse." });
    const conv = anthropicConversation(prompt, {
      ...OPTIONS,
      onRequest: () => {
        throw new Error("observer down");
      },
    });
    conv.user("Hi.");
    await conv.request();
    conv.record(answer("m1", { input_tokens: 3, output_tokens: 1 }));
    assert.equal(conv.save().trim().split("\n").length, 2);
    assert.throws(
      () =>
        anthropicConversation(prompt, {
          ...OPTIONS,
          diagnostics: "yes" as unknown as boolean,
        }),
      (error) =>
        error instanceof SystemPromptError && error.code === "INVALID_CONFIG",
    );
    assert.throws(
      () => conv.report(undefined as never),
      (error) =>
        error instanceof SystemPromptError && error.code === "INVALID_CONFIG",
    );
    await prompt.dispose();
  });

  it("Chat Completions takes the option and asks nothing (it has no diagnosis)", async () => {
    const prompt = new SystemPrompt({ persona: "You are terse." });
    const conv = chatConversation(prompt, {
      model: "gpt-5.6",
      diagnostics: true,
    });
    conv.user("Hi.");
    const body = await conv.request();
    assert.ok(!JSON.stringify(body).includes("comparison_response_id"));
    assert.ok(!("diagnostics" in body));
    await prompt.dispose();
  });

  it("asks for the diagnosis with the previous answer's id, saved and resumed", async () => {
    const { prompt, conv } = await runSession({ diagnostics: true });
    try {
      const again = resumeAnthropicConversation(prompt, conv.save());
      for (const next of [conv, again]) {
        next.user("And now?");
        const body = await next.request();
        assert.deepEqual(body.diagnostics, { previous_message_id: "msg_5" });
      }
      // The resumed report is the original's.
      assert.deepEqual(
        again.report({ countTokens }),
        conv.report({ countTokens }),
      );
      const plain = anthropicConversation(prompt, OPTIONS);
      plain.user("Hi.");
      assert.ok(!("diagnostics" in await plain.request()));
      const first = anthropicConversation(prompt, {
        ...OPTIONS,
        diagnostics: true,
      });
      first.user("Hi.");
      assert.deepEqual((await first.request()).diagnostics, {
        previous_message_id: null,
      });
    } finally {
      await prompt.dispose();
    }
  });

  it("reports a Chat Completions conversation from usage and bytes", async () => {
    const prompt = new SystemPrompt({ persona: "House rules. ".repeat(800) });
    const conv = chatConversation(prompt, { model: "gpt-5.6", cache: true });
    const completion = (prompt_tokens: number, cached: number) => ({
      id: "chatcmpl-1",
      object: "chat.completion",
      model: "gpt-5.6",
      choices: [{
        index: 0,
        finish_reason: "stop",
        message: { role: "assistant" as const, content: "Done." },
      }],
      usage: {
        prompt_tokens,
        completion_tokens: 2,
        total_tokens: prompt_tokens + 2,
        prompt_tokens_details: { cached_tokens: cached, cache_write_tokens: 0 },
      },
    });
    try {
      for (const cached of [0, 2560, 0]) {
        conv.user("Go on.");
        await conv.request();
        conv.record(completion(2620, cached));
      }
      const report = conv.report({ countTokens });
      assert.equal(report.requests[1].judgement?.missed, false);
      assert.equal(report.requests[2].judgement?.missed, true);
      assert.equal(report.requests[2].judgement?.verdict, "provider");
      assert.equal(report.requests[2].judgement?.provider.status, "none");
      // The rebuilt bodies carry the system message and the marks.
      assert.ok(report.requests[0].estimate !== undefined);
    } finally {
      await prompt.dispose();
    }
  });

  it("rebuilds from the recording the very bodies that were sent", async () => {
    const { prompt, conv, seen } = await runSession({ diagnostics: true });
    try {
      const parsed = parseRecording(conv.save(), "anthropic-messages");
      const rebuilt = recordedRequests(
        parsed.header,
        parsed.steps,
        MESSAGES_FORM,
        (response: unknown) => [{
          role: "assistant",
          content: (response as { content: unknown }).content,
        }],
      );
      assert.deepEqual(
        rebuilt.map((request) => request.body),
        seen.map((request) => {
          const { diagnostics: _, ...body } = request.body as Record<
            string,
            unknown
          >;
          return body;
        }),
      );
      assert.deepEqual(
        rebuilt.map((request) => request.time),
        SESSION.map((step) => 1_000_000 + step.time),
      );
    } finally {
      await prompt.dispose();
    }
  });
});
