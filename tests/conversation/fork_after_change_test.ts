/**
 * A fork made after its parent told a section change inline: its first
 * request starts with the parent's system prompt as the parent's head has
 * it (the old text), byte for byte, so it reads the parent's cache, and
 * tells the change as the parent did; a change cheaper to rewrite than to
 * restate (in the last section) is rendered in place instead. The same
 * bytes after a resume of the fork, before and after its first request.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt } from "../../mod.ts";
import {
  anthropicConversation,
  resumeAnthropicConversation,
} from "../../adapters/anthropic/mod.ts";
import {
  chatConversation,
  responsesConversation,
  resumeChatConversation,
  resumeResponsesConversation,
} from "../../adapters/openai/mod.ts";

interface Forked {
  user(text: string): void;
  request(context?: { scope: string }): Promise<unknown>;
  record(answer: never): unknown;
  fork(): Forked;
  save(): string;
}

interface Form {
  readonly name: string;
  start(prompt: SystemPrompt): Forked;
  resume(prompt: SystemPrompt, saved: string): Forked;
  answer: unknown;
  /** The system prompt's texts of a body, in order. */
  system(body: unknown): string[];
  /** Every text the body's messages carry, in order. */
  messages(body: unknown): string[];
}

function texts(content: unknown): string[] {
  if (typeof content === "string") return [content];
  return (content as { text?: string }[]).flatMap((part) =>
    typeof part.text === "string" ? [part.text] : []
  );
}

/** The texts of an OpenAI body's list: its system message, and the rest. */
function openAITexts(
  list: "messages" | "input",
): Pick<Form, "system" | "messages"> {
  const items = (body: unknown) =>
    (body as Record<string, { content?: unknown }[]>)[list];
  return {
    system: (body) => texts(items(body)[0].content),
    messages: (body) =>
      items(body).slice(1).flatMap((item) =>
        item.content === undefined ? [] : texts(item.content)
      ),
  };
}

const FORMS: readonly Form[] = [
  {
    name: "Anthropic",
    start: (prompt) =>
      anthropicConversation(prompt, {
        model: "claude-sonnet-4-5",
        max_tokens: 1024,
      }) as unknown as Forked,
    resume: (prompt, saved) =>
      resumeAnthropicConversation(prompt, saved) as unknown as Forked,
    answer: { role: "assistant", content: [{ type: "text", text: "Done." }] },
    system: (body) =>
      (body as { system: { text: string }[] }).system.map((b) => b.text),
    messages: (body) =>
      (body as { messages: { content: unknown }[] }).messages.flatMap((m) =>
        texts(m.content)
      ),
  },
  {
    name: "Chat Completions",
    start: (prompt) =>
      chatConversation(prompt, { model: "gpt-5.6" }) as unknown as Forked,
    resume: (prompt, saved) =>
      resumeChatConversation(prompt, saved) as unknown as Forked,
    answer: {
      object: "chat.completion",
      choices: [{ message: { role: "assistant", content: "Done." } }],
    },
    ...openAITexts("messages"),
  },
  {
    name: "Responses",
    start: (prompt) =>
      responsesConversation(prompt, { model: "gpt-5.6" }) as unknown as Forked,
    resume: (prompt, saved) =>
      resumeResponsesConversation(prompt, saved) as unknown as Forked,
    answer: {
      object: "response",
      output: [{
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text: "Done." }],
      }],
    },
    ...openAITexts("input"),
  },
];

/** A long rule, the git section (order 50), long notes, a reviewer's own. */
function registry(): { prompt: SystemPrompt; set(text: string): void } {
  let git = "On main.";
  let last = "Be brief.";
  const prompt = new SystemPrompt({ persona: "You are a coding agent." });
  prompt.section({
    name: "rules",
    order: 10,
    text: "Follow the house rules. ".repeat(60),
  });
  prompt.section({ name: "git", order: 50, text: () => git });
  prompt.section({
    name: "notes",
    order: 900,
    text: "Be careful. ".repeat(60),
  });
  prompt.section({ name: "last", order: 950, text: () => last });
  prompt.scope("reviewer").section({
    name: "review",
    order: 200,
    text: "Comment; never edit.",
  });
  return {
    prompt,
    set: (text) => {
      if (text.startsWith("On ")) git = text;
      else last = text;
    },
  };
}

/** The parent's two steps with `change` between them; its last body. */
async function parentOf(
  form: Form,
  prompt: SystemPrompt,
  change: () => void,
): Promise<{ parent: Forked; last: unknown }> {
  const parent = form.start(prompt);
  parent.user("Plan.");
  await parent.request();
  parent.record(structuredClone(form.answer) as never);
  change();
  parent.user("Go on.");
  const last = await parent.request();
  parent.record(structuredClone(form.answer) as never);
  return { parent, last };
}

for (const form of FORMS) {
  describe(`a fork after an inline section change on ${form.name}`, () => {
    it("shares the parent's whole system prompt and tells the change", async () => {
      const { prompt, set } = registry();
      try {
        const { parent, last } = await parentOf(
          form,
          prompt,
          () => set("On fix/x."),
        );
        // The parent keeps its head and told the change inline.
        assert.ok(form.system(last).join("").includes("On main."));
        const child = parent.fork();
        const early = child.save();
        child.user("Review.");
        const body = await child.request({ scope: "reviewer" });
        const parentSystem = form.system(last).join("");
        const childSystem = form.system(body).join("");
        assert.ok(
          childSystem.startsWith(parentSystem),
          `the child's system prompt starts with the parent's:\n${childSystem}`,
        );
        assert.ok(childSystem.endsWith("Comment; never edit."));
        const told = form.messages(body).join("\n");
        assert.match(told, /section "git" now reads:\n\nOn fix\/x\./);
        // A resume before and after the child's first request: the same.
        const resumed = form.resume(prompt, early);
        resumed.user("Review.");
        assert.equal(
          JSON.stringify(await resumed.request({ scope: "reviewer" })),
          JSON.stringify(body),
        );
        child.record(structuredClone(form.answer) as never);
        const again = form.resume(prompt, child.save());
        for (const c of [child, again]) c.user("More.");
        assert.equal(
          JSON.stringify(await again.request({ scope: "reviewer" })),
          JSON.stringify(await child.request({ scope: "reviewer" })),
        );
      } finally {
        await prompt.dispose();
      }
    });

    it("renders a change in place when restating it costs more", async () => {
      const { prompt, set } = registry();
      try {
        const { parent, last } = await parentOf(
          form,
          prompt,
          () => set("Be very brief."),
        );
        const child = parent.fork();
        child.user("Review.");
        const body = await child.request({ scope: "reviewer" });
        const childSystem = form.system(body).join("");
        assert.ok(childSystem.includes("Be very brief."));
        assert.ok(!childSystem.includes("Be brief."));
        assert.doesNotMatch(form.messages(body).join("\n"), /now reads/);
        // What precedes the last section is still the parent's.
        const parentSystem = form.system(last).join("");
        const shared = parentSystem.slice(0, parentSystem.indexOf("Be brief."));
        assert.ok(childSystem.startsWith(shared));
      } finally {
        await prompt.dispose();
      }
    });
  });
}
