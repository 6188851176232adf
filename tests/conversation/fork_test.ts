/**
 * SPEC 9.1, 9.8: a fork (a sub-agent) starts from its parent's listed tools
 * and prompt_cache_key; its first request marks the end of the prefix it
 * shares with its parent's last request; save and resume keep all of it.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  anthropicConversation,
  type AnthropicConversationBody,
  resumeAnthropicConversation,
  toMessages,
} from "../../adapters/anthropic/mod.ts";
import {
  chatConversation,
  resumeChatConversation,
} from "../../adapters/openai/mod.ts";
import type { SystemPrompt } from "../../mod.ts";
import {
  assertResumedBytes,
  completion,
  forkAfter,
  forkRegistry,
  markCount,
  message,
  schema,
  unmarked,
} from "./helpers.ts";

const OPTIONS = { model: "claude-sonnet-4-5", max_tokens: 1024 };

/** A parent prompt and a reviewer scope with four cut points of its own. */
function registry(): SystemPrompt {
  return forkRegistry({ style: false, reviewRules: ["a", "b", "c", "d"] });
}

function systemMarks(body: AnthropicConversationBody): boolean[] {
  return body.system.map((block) => block.cache_control !== undefined);
}

describe("fork", () => {
  it("marks the end of the prefix the first request shares with its parent, within four markers", async () => {
    const prompt = registry();
    const parent = anthropicConversation(prompt, OPTIONS);
    const { parentBody, child } = await forkAfter(parent, {
      question: "Plan the change.",
      answer: message([{ type: "text", text: "Planned." }]),
    });
    child.user("Review the change.");
    const first = await child.request({ scope: "reviewer" });
    assert.equal(
      JSON.stringify(unmarked(first.tools)),
      JSON.stringify(unmarked(parentBody.tools)),
    );
    assert.equal(first.system[0].text, parentBody.system[0].text);
    assert.equal(systemMarks(first)[0], true); // the shared prefix's end
    assert.ok(markCount(first) <= 4);
    child.record(message([{ type: "text", text: "Looks fine." }]));
    child.user("Anything else?");
    const second = await child.request({ scope: "reviewer" });
    // Past the first request, the adapter's own choice of markers again.
    const adapter = toMessages(await prompt.assemble({ scope: "reviewer" }), {
      cache: true,
      gating: "keep",
      maxCacheBreakpoints: 3,
    });
    assert.deepEqual(
      systemMarks(second),
      adapter.system.map((block) => block.cache_control !== undefined),
    );
    assert.equal(child.messages.length, 2);
    assert.notEqual(child.session, parent.session);
    await prompt.dispose();
  });

  it("resumes a fork to the very bytes, before and after its first step", async () => {
    const prompt = registry();
    const { child } = await forkAfter(
      anthropicConversation(prompt, OPTIONS),
      {
        question: "Plan.",
        answer: message([{ type: "text", text: "Planned." }]),
      },
    );
    const early = resumeAnthropicConversation(prompt, child.save());
    await assertResumedBytes(child, early, "Review.");
    child.record(message([{ type: "text", text: "Fine." }]));
    const late = resumeAnthropicConversation(prompt, child.save());
    await assertResumedBytes(child, late, "More?");
    await prompt.dispose();
  });

  it("inherits prompt_cache_key on OpenAI, also across a resume", async () => {
    const prompt = registry();
    const parent = chatConversation(prompt, { model: "gpt-5.6", cache: true });
    parent.user("Plan.");
    const key = (await parent.request()).prompt_cache_key;
    parent.record(completion([]));
    const child = parent.fork();
    child.user("Review.");
    assert.equal(
      (await child.request({ scope: "reviewer" })).prompt_cache_key,
      key,
    );
    child.record(completion([]));
    const again = resumeChatConversation(prompt, child.save());
    again.user("More?");
    assert.equal(
      (await again.request({ scope: "reviewer" })).prompt_cache_key,
      key,
    );
    await prompt.dispose();
  });

  it("with inline tool changes, lists the parent's tools and adds its own in the conversation", async () => {
    const prompt = registry();
    prompt.scope("reviewer").tools(() => ({ schemas: [schema("annotate")] }));
    const parent = anthropicConversation(prompt, {
      ...OPTIONS,
      toolChanges: "inline",
    });
    const { parentBody, child } = await forkAfter(parent, {
      question: "Plan.",
      answer: message([{ type: "text", text: "Planned." }]),
    });
    child.user("Review.");
    const first = await child.request({ scope: "reviewer" });
    assert.equal(
      JSON.stringify(unmarked(first.tools)),
      JSON.stringify(unmarked(parentBody.tools)),
    );
    const change = first.messages.at(-1)!;
    assert.equal(change.role, "system");
    assert.deepEqual(
      change.content.map((block) => block.type),
      ["tool_addition"],
    );
    await prompt.dispose();
  });
});
