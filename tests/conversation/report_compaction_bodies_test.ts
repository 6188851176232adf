/**
 * The report rebuilds, from a recording, the very bodies a conversation
 * sent, the summarizing request of a compaction and the requests after its
 * swap included: on the forms whose list starts with the head's system
 * message (Chat Completions, OpenAI Responses) as on Anthropic. Its
 * estimates run the simulator over these bodies, so a body rebuilt short
 * (the history's first message lost) is a wrong figure.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt } from "../../mod.ts";
import {
  chatConversation,
  responsesConversation,
} from "../../adapters/openai/mod.ts";
import { anthropicConversation } from "../../adapters/anthropic/mod.ts";
import { parseRecording } from "../../src/conversation/recording.ts";
import { recordedRequests } from "../../src/conversation/report.ts";
import { RECOGNITION } from "../../adapters/forms.ts";

interface Driven {
  user(text: string): void;
  request(): Promise<unknown>;
  record(answer: never): unknown;
  save(): string;
  readonly summarizing: boolean;
}

interface Form {
  readonly id: string;
  start(prompt: SystemPrompt): Driven;
  answer(text: string, summarizing: boolean): unknown;
}

const compactAt = { inputTokens: 100 };

const FORMS: readonly Form[] = [
  {
    id: "openai-chat",
    start: (prompt) =>
      chatConversation(prompt, { model: "gpt-5.6", compactAt }) as never,
    answer: (text) => ({
      object: "chat.completion",
      choices: [{ message: { role: "assistant", content: text } }],
      usage: { prompt_tokens: 500, completion_tokens: 5 },
    }),
  },
  {
    id: "openai-responses",
    start: (prompt) =>
      responsesConversation(prompt, { model: "gpt-5.6", compactAt }) as never,
    answer: (text, summarizing) => ({
      object: "response",
      output: [
        summarizing
          ? { type: "compaction", id: "cmp_1", encrypted_content: text }
          : {
            type: "message",
            role: "assistant",
            content: [{ type: "output_text", text }],
          },
      ],
      usage: { input_tokens: 500, output_tokens: 5 },
    }),
  },
  {
    id: "anthropic-messages",
    start: (prompt) =>
      anthropicConversation(prompt, {
        model: "claude-sonnet-4-5",
        max_tokens: 1024,
        compactAt,
      }) as never,
    answer: (text, summarizing) => ({
      role: "assistant",
      ...(summarizing ? { stop_reason: "compaction" } : {}),
      content: [
        summarizing
          ? { type: "compaction", content: text }
          : { type: "text", text },
      ],
      usage: { input_tokens: 500, output_tokens: 5 },
    }),
  },
];

for (const form of FORMS) {
  describe(`the report's bodies of a compacted ${form.id} conversation`, () => {
    it("are the bodies sent, the summarizing request and the swap's included", async () => {
      const prompt = new SystemPrompt({ persona: "You are a coding agent." });
      try {
        const conv = form.start(prompt);
        const sent: string[] = []; // as JSON: what reached the wire
        let summaries = 0;
        for (const ask of ["Fix the build.", "Run the tests.", "Ship it."]) {
          conv.user(ask);
          do {
            const body = await conv.request();
            sent.push(JSON.stringify(body));
            const summarizing = conv.summarizing;
            if (summarizing) summaries++;
            conv.record(
              form.answer(
                summarizing ? "The summary." : `Done: ${ask}`,
                summarizing,
              ) as never,
            );
          } while (conv.summarizing);
        }
        assert.ok(summaries >= 1, "the session compacted");
        const { header, steps } = parseRecording(conv.save(), form.id);
        const known = RECOGNITION.find((entry) => entry.id === form.id)!;
        const rebuilt = recordedRequests(
          header,
          steps,
          known,
          (answer) => known.readAnswer(answer as never, () => {}).messages,
        );
        // The betas a body adds for its messages are the SDK's header, not
        // the prompt the report reads.
        const prompted = (body: unknown) => {
          const { betas: _betas, ...rest } = body as Record<string, unknown>;
          return rest;
        };
        assert.deepEqual(
          rebuilt.map((request) => prompted(request.body)),
          sent.map((body) => prompted(JSON.parse(body))),
        );
      } finally {
        await prompt.dispose();
      }
    });
  });
}

describe("a step the provider compacted inside (serverCompaction)", () => {
  it("is judged compaction, not an eviction, when it reads less", async () => {
    const prompt = new SystemPrompt({ persona: "You are a coding agent." });
    try {
      const conv = responsesConversation(prompt, {
        model: "gpt-5.6",
        serverCompaction: { threshold: 1_000 },
      });
      const message = (text: string) => ({
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text }],
      });
      const usage = (input: number, cached: number) => ({
        input_tokens: input,
        input_tokens_details: { cached_tokens: cached },
        output_tokens: 5,
      });
      conv.user("Fix the build.");
      await conv.request();
      conv.record({
        object: "response",
        output: [message("Fixed.")],
        usage: usage(2_000, 0),
      } as never);
      conv.user("Run the tests.");
      await conv.request();
      conv.record({
        object: "response",
        output: [
          { type: "compaction", id: "cmp_1", encrypted_content: "summary" },
          message("Green."),
        ],
        usage: usage(2_100, 100),
      } as never);
      const report = conv.report({ countTokens: (text) => text.length >> 2 });
      assert.equal(report.requests[1].judgement?.verdict, "compaction");
      assert.equal(report.totals.verdicts.provider, 0);
    } finally {
      await prompt.dispose();
    }
  });
});
