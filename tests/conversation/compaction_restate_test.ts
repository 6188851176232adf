/**
 * SPEC 10.1 on 10.2 (issues 46 and 47): after a compaction, what the
 * summary dropped and the model must still see is told again, once: the
 * section changes (or the system prompt rebuilt, when restating them would
 * send more bytes than the rewrite), the tools added inline, the effort
 * told inline, the turn's reminder; a resumed conversation sends the same
 * bytes.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt, type ToolSchema } from "../../mod.ts";
import {
  anthropicConversation,
  resumeAnthropicConversation,
} from "../../adapters/anthropic/mod.ts";
import {
  chatConversation,
  responsesConversation,
  resumeResponsesConversation,
} from "../../adapters/openai/mod.ts";
import { rewriteIsShorter } from "../../src/conversation/compaction_head.ts";
import {
  sectionChanges,
  toldOf,
} from "../../src/conversation/system_changes.ts";
import { message } from "./helpers.ts";

const RULES = "Keep every change small and every test green. ".repeat(8);

function tool(name: string): ToolSchema {
  return { name, description: `The ${name} tool.`, parameters: {} };
}

/** A registry whose "git" section comes before a long one, or last. */
function registry(gitLast: boolean) {
  const state = {
    branch: "main",
    reminder: "",
    tools: [tool("read_file")],
  };
  const prompt = new SystemPrompt({ persona: "You are a coding agent." });
  prompt.section({ name: "rules", order: gitLast ? 10 : 30, text: RULES });
  prompt.section({ name: "git", order: 20, text: () => `On ${state.branch}.` });
  prompt.tools(() => ({ schemas: state.tools }));
  prompt.runtimeContext({
    name: "plan",
    order: 1,
    text: () => state.reminder,
    holds: "turn",
  });
  return { prompt, state };
}

type Body = {
  system: { text: string }[];
  messages: Record<string, unknown>[];
  output_config?: unknown;
  tools: { name: string }[];
};

const OPTIONS = {
  model: "claude-fable-5-1",
  max_tokens: 64,
  changes: "inline",
} as const;

const COMPACTION = {
  type: "compaction",
  content: "The work so far.",
  encrypted_content: "enc",
};

/**
 * Two steps (the second with the branch changed, a tool added, the effort
 * raised and a reminder), a compaction, and the request after it; the
 * recording saved before that request.
 */
async function compacted(gitLast: boolean) {
  const { prompt, state } = registry(gitLast);
  const conv = anthropicConversation(prompt, OPTIONS);
  conv.user("Fix the test.");
  const first = await conv.request({}, {
    output: { effort: "low" },
  }) as unknown as Body;
  conv.record(message([{ type: "text", text: "On it." }]));
  state.branch = "fix/test";
  state.tools = [...state.tools, tool("browse")];
  state.reminder = "Plan mode: do not edit files.";
  conv.user("Go on.");
  const second = await conv.request({}, {
    output: { effort: "high" },
  }) as unknown as Body;
  conv.record(message([{ type: "text", text: "Done." }]));
  const compaction = await conv.compact();
  compaction.record({
    ...message([COMPACTION]),
    stop_reason: "compaction",
  } as never);
  const saved = conv.save();
  conv.user("Next.");
  const after = await conv.request() as unknown as Body;
  return { prompt, state, conv, first, second, after, saved };
}

const told = (body: Body) =>
  body.messages.slice(1).filter((item) => item.role === "system");

const GIT_CHANGE =
  'The system prompt\'s section "git" now reads:\n\nOn fix/test.';

describe("what a compaction dropped, told again (issues 46 and 47)", () => {
  it("keeps the head and restates the section change, the added tool, the effort and the reminder, once", async () => {
    const { prompt, conv, first, second, after, saved } = await compacted(
      false,
    );
    // The second request told them inline.
    const inline = JSON.stringify(told(second));
    assert.ok(inline.includes(JSON.stringify(GIT_CHANGE)));
    assert.match(inline, /"tool_addition"/);
    assert.match(inline, /"output_config":\{"effort":"high"\}/);
    // After the compaction: the block first, the head kept byte for byte.
    assert.equal(
      (after.messages[0].content as { type: string }[])[0].type,
      "compaction",
    );
    assert.equal(
      JSON.stringify(after.system.map(({ text }) => text)),
      JSON.stringify(first.system.map(({ text }) => text)),
    );
    assert.deepEqual(after.output_config, { effort: "low" });
    assert.deepEqual(after.tools.map(({ name }) => name), ["read_file"]);
    const again = JSON.stringify(told(after));
    // The section change and the effort, told again once.
    assert.equal(again.split(JSON.stringify(GIT_CHANGE)).length - 1, 1);
    assert.equal(
      again.match(/"output_config":\{"effort":"high"\}/g)?.length,
      1,
    );
    // The reminder goes with the person's message, last.
    assert.deepEqual(after.messages.at(-1), {
      role: "system",
      clear_at: "next_user_message",
      content: [{ type: "text", text: "Plan mode: do not edit files." }],
    });
    // The tool added inline: the compaction block states the model's tools
    // against the tools block (Anthropic's tool_changes), sent as returned.
    assert.deepEqual(after.messages[0].content, [COMPACTION]);
    // Told once: the next request tells nothing again.
    conv.record(message([{ type: "text", text: "Next." }]));
    conv.user("And then?");
    const later = await conv.request() as unknown as Body;
    assert.equal(
      JSON.stringify(told(later)).split(JSON.stringify(GIT_CHANGE)).length - 1,
      1,
    );
    assert.equal(
      JSON.stringify(later).match(/"output_config":\{"effort":"high"\}/g)
        ?.length,
      1,
    );
    // Resumed after the compaction: the same bytes.
    const resumed = resumeAnthropicConversation(prompt, saved);
    resumed.user("Next.");
    assert.equal(
      JSON.stringify(await resumed.request()),
      JSON.stringify(after),
    );
    await prompt.dispose();
  });

  it("rebuilds the system prompt when restating would send more than the rewrite; resumed the same", async () => {
    const { prompt, conv, first, after, saved } = await compacted(true);
    const system = after.system.map(({ text }) => text).join("");
    assert.match(system, /On fix\/test\./);
    assert.doesNotMatch(system, /On main\./);
    assert.notEqual(
      JSON.stringify(after.system),
      JSON.stringify(first.system),
    );
    // Nothing of the sections restated; the effort still is (the
    // top-level field stays the first request's).
    const again = JSON.stringify(told(after));
    assert.doesNotMatch(again, /section "git"/);
    assert.match(again, /"output_config":\{"effort":"high"\}/);
    assert.deepEqual(after.output_config, { effort: "low" });
    // The next request extends it (the append-only check passes) and tells
    // no section change.
    conv.record(message([{ type: "text", text: "Next." }]));
    conv.user("And then?");
    const later = await conv.request() as unknown as Body;
    assert.equal(JSON.stringify(later.system), JSON.stringify(after.system));
    assert.doesNotMatch(JSON.stringify(later.messages), /section "git"/);
    const resumed = resumeAnthropicConversation(prompt, saved);
    resumed.user("Next.");
    assert.equal(
      JSON.stringify(await resumed.request()),
      JSON.stringify(after),
    );
    await prompt.dispose();
  });

  it("a client-side summary (Chat): the head rebuilt when the changed section is last", async () => {
    const { prompt, state } = registry(true);
    const conv = chatConversation(prompt, { model: "m" });
    const answer = (text: string) =>
      ({
        object: "chat.completion",
        choices: [{ message: { role: "assistant", content: text } }],
      }) as never;
    conv.user("Go.");
    const first = await conv.request();
    conv.record(answer("ok"));
    state.branch = "fix/test";
    conv.user("Again.");
    await conv.request();
    conv.record(answer("ok"));
    const compaction = await conv.compact();
    compaction.record(answer("The summary."));
    conv.user("Next.");
    const after = await conv.request();
    assert.match(JSON.stringify(after.messages[0]), /On fix\/test\./);
    assert.notEqual(
      JSON.stringify(after.messages[0]),
      JSON.stringify(first.messages[0]),
    );
    assert.doesNotMatch(JSON.stringify(after.messages.slice(1)), /"git"/);
    await prompt.dispose();
  });
});

describe("what a Responses compaction dropped, told again (issues 46 and 47)", () => {
  const reply = (
    output: Record<string, unknown>[] = [{
      type: "message",
      id: "m1",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: "ok", annotations: [] }],
    }],
  ) => ({ object: "response", output }) as never;

  it("the tools added inline (additional_tools) and the effort (configuration_update), once; resumed the same", async () => {
    const { prompt, state } = registry(false);
    const conv = responsesConversation(prompt, {
      model: "m",
      changes: "inline",
    });
    conv.user("Go.");
    await conv.request({}, { output: { effort: "low" } });
    conv.record(reply());
    state.tools = [...state.tools, tool("browse")];
    conv.user("Again.");
    const second = JSON.stringify(
      await conv.request({}, { output: { effort: "high" } }),
    );
    assert.equal(second.match(/"additional_tools"/g)?.length, 1);
    assert.equal(second.match(/"configuration_update"/g)?.length, 1);
    conv.record(reply());
    const compaction = await conv.compact();
    compaction.record(
      reply([{ type: "compaction", id: "cmp_1", encrypted_content: "enc" }]),
    );
    const saved = conv.save();
    conv.user("Next.");
    const after = await conv.request() as unknown as {
      input: Record<string, unknown>[];
      tools: { name: string }[];
      reasoning?: unknown;
    };
    const start = after.input.findIndex((item) => item.type === "compaction");
    assert.ok(start >= 0);
    const items = JSON.stringify(after.input.slice(start));
    // The tools block kept; the tool given inline told again, once.
    assert.deepEqual(after.tools.map(({ name }) => name), ["read_file"]);
    assert.equal(items.match(/"additional_tools"/g)?.length, 1);
    assert.match(items, /"name":"browse"/);
    assert.deepEqual(after.reasoning, { effort: "low" });
    assert.equal(items.match(/"configuration_update"/g)?.length, 1);
    assert.match(items, /"reasoning":\{"effort":"high"\}/);
    const resumed = resumeResponsesConversation(prompt, saved);
    resumed.user("Next.");
    assert.equal(
      JSON.stringify(await resumed.request()),
      JSON.stringify(after),
    );
    await prompt.dispose();
  });
});

describe("rewriteIsShorter", () => {
  const head = [
    { name: "persona", order: 0, text: "You are a coding agent." },
    { name: "git", order: 10, text: "On main." },
    { name: "rules", order: 20, text: RULES },
  ];
  const decide = (now: typeof head) =>
    rewriteIsShorter(
      head,
      now,
      sectionChanges(toldOf(head), now),
    );

  it("keeps a head with nothing to restate", () => {
    assert.equal(decide(head), false);
  });

  it("keeps the head when the rewrite (the changed section to the end) is longer than the restatement", () => {
    assert.equal(
      decide(head.map((s) => s.name === "git" ? { ...s, text: "On x." } : s)),
      false,
    );
  });

  it("rebuilds when the rewrite is no longer than the restatement", () => {
    assert.equal(
      decide(
        head.map((s) => s.name === "rules" ? { ...s, text: "Be brief." } : s),
      ),
      true,
    );
    // A section added last, and one removed.
    assert.equal(
      decide([...head, { name: "review", order: 30, text: "Review." }]),
      true,
    );
    assert.equal(decide(head.slice(0, 2)), true);
  });

  it("counts a long added section as rewritten in full: restating it is as long", () => {
    const long = "x".repeat(5000);
    // Added before the long rules: the rewrite holds it and the rules.
    assert.equal(
      decide([
        head[0],
        { name: "big", order: 5, text: long },
        ...head.slice(1),
      ]),
      false,
    );
  });
});
