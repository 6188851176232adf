/**
 * SPEC 9.8 "Marks and lifetimes" on OpenAI: with `cache` (explicit
 * breakpoints), a fork's first request puts a `prompt_cache_breakpoint` on
 * the system part that ends the prefix it shares with its parent's last
 * request (within `maxCacheBreakpoints`), on its parent's
 * `prompt_cache_key`; save and resume keep the bytes.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  chatConversation,
  responsesConversation,
  resumeChatConversation,
  resumeResponsesConversation,
  toChatCompletions,
  toResponses,
} from "../../adapters/openai/mod.ts";
import type { PromptAssembly, SystemPrompt } from "../../mod.ts";
import { forkLayout } from "../../src/conversation/fork_layout.ts";
import {
  assertResumedBytes,
  completion,
  forkAfter,
  forkRegistry,
  responsesAnswer,
  schema,
} from "./helpers.ts";

/** A parent prompt and a reviewer scope with cut points of its own. */
function registry(): SystemPrompt {
  return forkRegistry({ style: true, reviewRules: ["a", "b", "c"] });
}

type Part = { text: string; prompt_cache_breakpoint?: unknown };
type Body = {
  prompt_cache_key: string;
  tools?: unknown;
  messages?: { content: unknown }[];
  input?: { content?: unknown }[];
};

/**
 * The adapters' latest marks (the last `cacheBreakpoint` blocks): they miss
 * the end of the prefix a fork shares.
 */
const EXPLICIT = { cache: true, breakpoints: "explicit" } as const;

/** One OpenAI form, driven the same way. */
interface OpenAIForm {
  readonly name: string;
  start(prompt: SystemPrompt, cache?: boolean): Conv;
  resume(prompt: SystemPrompt, recording: string): Conv;
  answer(): never;
  /** The system parts the adapter itself marks for this assembly. */
  adapterParts(assembly: PromptAssembly): Part[];
}

interface Conv {
  user(text: string): void;
  request(context?: { scope: string }): Promise<Body>;
  record(answer: never): unknown;
  fork(): Conv;
  save(): string;
}

const FORMS: readonly OpenAIForm[] = [
  {
    name: "chat",
    start: (prompt, cache = true) =>
      chatConversation(prompt, {
        model: "gpt-5.6",
        ...(cache ? { cache: true } : {}),
        breakpoints: "explicit",
      }) as unknown as Conv,
    resume: (prompt, recording) =>
      resumeChatConversation(prompt, recording) as unknown as Conv,
    answer: () => completion([]) as never,
    adapterParts: (assembly) =>
      toChatCompletions(assembly, EXPLICIT).system.content as Part[],
  },
  {
    name: "responses",
    start: (prompt, cache = true) =>
      responsesConversation(prompt, {
        model: "gpt-5.6",
        ...(cache ? { cache: true } : {}),
        breakpoints: "explicit",
      }) as unknown as Conv,
    resume: (prompt, recording) =>
      resumeResponsesConversation(prompt, recording) as unknown as Conv,
    answer: () => responsesAnswer([]) as never,
    adapterParts: (assembly) => {
      const fields = toResponses(assembly, EXPLICIT);
      return "system" in fields ? fields.system.content as Part[] : [];
    },
  },
];

function systemOf(body: Body): Part[] {
  const first = (body.messages ?? body.input)![0] as { content: unknown };
  return Array.isArray(first.content) ? first.content as Part[] : [];
}

function marks(parts: Part[]): boolean[] {
  return parts.map((part) => part.prompt_cache_breakpoint !== undefined);
}

function texts(parts: Part[]): string[] {
  return parts.map((part) => part.text);
}

for (const form of FORMS) {
  describe(`fork on OpenAI ${form.name}`, () => {
    it("lays its own sections after the parent's and marks the end of the prefix they share, within the marks", async () => {
      const prompt = registry();
      // The lead's own section, which a reviewer bound to the lead shares.
      prompt.scope("lead").section({
        name: "lead",
        order: 500,
        text: "You lead the change.",
        cacheBreakpoint: true,
      });
      prompt.bindScope("reviewer", "lead");
      const parent = form.start(prompt);
      parent.user("Plan the change.");
      const parentBody = await parent.request({ scope: "lead" });
      parent.record(form.answer());
      const child = parent.fork();
      child.user("Review the change.");
      const first = await child.request({ scope: "reviewer" });
      assert.equal(first.prompt_cache_key, parentBody.prompt_cache_key);
      assert.equal(
        JSON.stringify(first.tools),
        JSON.stringify(parentBody.tools),
      );
      const before = texts(systemOf(parentBody));
      const now = systemOf(first);
      const shared = before.length;
      assert.deepEqual(texts(now).slice(0, shared), before);
      // The reviewer's own sections follow, the blank line before them theirs.
      assert.deepEqual(texts(now).slice(shared), [
        "\n\nReview rule a.\n\n",
        "Review rule b.\n\n",
        "Review rule c.",
      ]);
      assert.equal(marks(now)[shared - 1], true); // the shared prefix's end
      assert.ok(marks(now).filter(Boolean).length <= 2);
      const adapter = form.adapterParts(
        forkLayout(await prompt.assemble({ scope: "reviewer" }), before),
      );
      // The adapter alone marks the end of the lead's stable part instead.
      assert.equal(marks(adapter)[shared - 1], false);
      child.record(form.answer());
      child.user("Anything else?");
      const second = await child.request({ scope: "reviewer" });
      // The layout stays; past the first request, the adapter's own choice
      // of marks again.
      assert.deepEqual(texts(systemOf(second)), texts(now));
      assert.deepEqual(marks(systemOf(second)), marks(adapter));
      await prompt.dispose();
    });

    it("resumes a fork to the very bytes before its first step", async () => {
      const prompt = registry();
      const { child } = await forkAfter(form.start(prompt), {
        question: "Plan.",
        answer: form.answer(),
      });
      const early = form.resume(prompt, child.save());
      await assertResumedBytes(child, early, "Review.");
      await prompt.dispose();
    });

    it("adds no mark without cache, nor when the tools differ", async () => {
      const prompt = registry();
      const { child } = await forkAfter(form.start(prompt, false), {
        question: "Plan.",
        answer: form.answer(),
      });
      child.user("Review.");
      const plain = await child.request({ scope: "reviewer" });
      assert.ok(!JSON.stringify(plain).includes("prompt_cache_breakpoint"));
      const cached = form.start(prompt);
      cached.user("Plan.");
      await cached.request();
      cached.record(form.answer());
      prompt.scope("reviewer").tools(() => ({ schemas: [schema("annotate")] }));
      const other = cached.fork();
      other.user("Review.");
      const first = await other.request({ scope: "reviewer" });
      assert.deepEqual(
        marks(systemOf(first)),
        marks(form.adapterParts(await prompt.assemble({ scope: "reviewer" }))),
      );
      await prompt.dispose();
    });
  });
}
