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
  type AnthropicInlineConversationBody,
  resumeAnthropicConversation,
} from "../../adapters/anthropic/mod.ts";
import { messagesRequest } from "../../adapters/anthropic/messages.ts";
import { forkLayout } from "../../src/conversation/fork_layout.ts";
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

type Body = AnthropicConversationBody | AnthropicInlineConversationBody;

function systemMarks(body: Body): boolean[] {
  return body.system.map((block) => block.cache_control !== undefined);
}

function texts(body: Body): string[] {
  return body.system.map((block) => block.text);
}

describe("fork", () => {
  it("lays its own sections after the parent's and marks the end of the prefix they share, within four markers", async () => {
    const prompt = registry();
    // The lead's own section, which a reviewer bound to the lead shares.
    prompt.scope("lead").section({
      name: "lead",
      order: 500,
      text: "You lead the change.",
      cacheBreakpoint: true,
    });
    prompt.bindScope("reviewer", "lead");
    const parent = anthropicConversation(prompt, OPTIONS);
    parent.user("Plan the change.");
    const parentBody = await parent.request({ scope: "lead" });
    parent.record(message([{ type: "text", text: "Planned." }]));
    const child = parent.fork();
    child.user("Review the change.");
    const first = await child.request({ scope: "reviewer" });
    assert.equal(
      JSON.stringify(unmarked(first.tools)),
      JSON.stringify(unmarked(parentBody.tools)),
    );
    const shared = parentBody.system.length;
    assert.deepEqual(texts(first).slice(0, shared), texts(parentBody));
    // The reviewer's own sections follow, the blank line before them theirs.
    assert.deepEqual(texts(first).slice(shared), [
      "\n\nReview rule a.\n\n",
      "Review rule b.\n\n",
      "Review rule c.\n\n",
      "Review rule d.",
    ]);
    assert.equal(systemMarks(first)[shared - 1], true); // the shared prefix's end
    // The marker closest before it gave way: the lookback reaches it.
    assert.equal(systemMarks(first)[0], false);
    assert.ok(markCount(first) <= 4);
    child.record(message([{ type: "text", text: "Looks fine." }]));
    child.user("Anything else?");
    const second = await child.request({ scope: "reviewer" });
    // The layout stays; past the first request, the adapter's own choice
    // of markers again.
    assert.deepEqual(texts(second), texts(first));
    const adapter = messagesRequest(
      forkLayout(
        await prompt.assemble({ scope: "reviewer" }),
        texts(parentBody),
      ),
      { cache: true, gating: "keep", maxCacheBreakpoints: 3 },
      { keepToolsEnd: true },
    );
    assert.deepEqual(
      systemMarks(second),
      adapter.system.map((block) => block.cache_control !== undefined),
    );
    assert.equal(systemMarks(second)[0], true);
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

  it("lists the tools its scope adds after its parent's, whatever their names", async () => {
    const prompt = registry();
    prompt.scope("reviewer").tools(() => ({
      schemas: [schema("annotate"), schema("zoom")],
    }));
    const { parentBody, child } = await forkAfter(
      anthropicConversation(prompt, OPTIONS),
      {
        question: "Plan.",
        answer: message([{ type: "text", text: "Planned." }]),
      },
    );
    child.user("Review.");
    const first = await child.request({ scope: "reviewer" });
    assert.deepEqual(
      first.tools?.map((tool) => tool.name),
      ["read_file", "shell", "annotate", "zoom"],
    );
    assert.deepEqual(
      JSON.stringify(unmarked(first.tools?.slice(0, 2))),
      JSON.stringify(unmarked(parentBody.tools)),
    );
    // The end of the parent's tools is marked: the prefix the child shares.
    assert.ok(first.tools?.[1].cache_control !== undefined);
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
