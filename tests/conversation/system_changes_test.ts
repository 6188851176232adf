/**
 * SPEC 10.1 (issue 46): what the model was told of the system prompt and
 * what changed since; each form's message telling it; the `changes`
 * option; the append-only check.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt, SystemPromptError } from "../../mod.ts";
import { anthropicConversation } from "../../adapters/anthropic/mod.ts";
import {
  chatConversation,
  responsesConversation,
  resumeChatConversation,
  resumeResponsesConversation,
} from "../../adapters/openai/mod.ts";
import {
  aiSdkConversation,
  resumeAiSdkConversation,
} from "../../adapters/ai_sdk/mod.ts";
import {
  changeText,
  heldAssembly,
  heldSections,
  literalTemplate,
  sectionChanges,
  toldAfter,
  toldOf,
} from "../../src/conversation/system_changes.ts";
import { checkAppendOnly } from "../../src/conversation/append_only.ts";
import { History, type Placement } from "../../src/conversation/history.ts";
import { renderPrompt } from "../../mod.ts";
import { message } from "./helpers.ts";

const code = (name: string) => (error: unknown) =>
  error instanceof SystemPromptError && error.code === name;

function registry() {
  const state = { branch: "main", review: false };
  const prompt = new SystemPrompt({ persona: "You are a coding agent." });
  prompt.section({ name: "git", order: 10, text: () => `On ${state.branch}.` });
  prompt.section({
    name: "review",
    order: 20,
    text: () => state.review ? "Comment on every line." : "",
  });
  return { prompt, state };
}

describe("system changes (issue 46)", () => {
  it("lists changed and added sections in the assembly's order, then the removed ones", async () => {
    const { prompt, state } = registry();
    const told = toldOf(heldSections(await prompt.assemble()));
    state.branch = "fix";
    state.review = true;
    const changes = sectionChanges(told, heldSections(await prompt.assemble()));
    assert.deepEqual(changes, [
      { kind: "changed", name: "git", text: "On fix." },
      { kind: "added", name: "review", text: "Comment on every line." },
    ]);
    const after = toldAfter(told, changes);
    state.branch = "main";
    state.review = false;
    assert.deepEqual(
      sectionChanges(after, heldSections(await prompt.assemble())),
      [
        { kind: "changed", name: "git", text: "On main." },
        { kind: "removed", name: "review" },
      ],
    );
    // Told, nothing is left to tell.
    assert.deepEqual(
      sectionChanges(
        toldAfter(after, [
          { kind: "changed", name: "git", text: "On main." },
          { kind: "removed", name: "review" },
        ]),
        heldSections(await prompt.assemble()),
      ),
      [],
    );
    await prompt.dispose();
  });

  it("says which section now reads what, its name quoted", () => {
    assert.equal(
      changeText({ kind: "changed", name: "git", text: "On fix." }),
      `The system prompt's section "git" now reads:\n\nOn fix.`,
    );
    assert.equal(
      changeText({ kind: "added", name: 'a "b"', text: "T" }),
      `The system prompt has a new section "a \\"b\\"":\n\nT`,
    );
    assert.equal(
      changeText({ kind: "removed", name: "git" }),
      `The system prompt's section "git" no longer applies.`,
    );
  });

  it("keeps a head's sections as templates rendering their texts exactly", async () => {
    for (
      const text of ["{{x}}", "a \\{{b}}", "\\\\{{c}}", "{{{", "}}{{", "\\"]
    ) {
      assert.equal(
        renderPrompt({
          sections: [{ name: "s", order: 0, text: literalTemplate(text) }],
          tools: [],
          variables: {},
        }),
        text,
      );
    }
    const prompt = new SystemPrompt({ persona: "Use {{tool}}." });
    prompt.variable("tool", () => "grep");
    const assembly = await prompt.assemble();
    const held = heldSections(assembly);
    assert.equal(
      renderPrompt(heldAssembly({ ...assembly, variables: {} }, held)),
      renderPrompt(assembly),
    );
    await prompt.dispose();
  });

  it("on every form: the head stays, the change goes in one message after the step's items", async () => {
    const starts = {
      anthropic: (prompt: SystemPrompt) =>
        anthropicConversation(prompt, { model: "m", max_tokens: 64 }),
      chat: (prompt: SystemPrompt) => chatConversation(prompt, { model: "m" }),
      responses: (prompt: SystemPrompt) =>
        responsesConversation(prompt, { model: "m" }),
      aiSdk: (prompt: SystemPrompt) => aiSdkConversation(prompt),
    };
    const answers = {
      anthropic: message([{ type: "text", text: "ok" }]),
      chat: {
        object: "chat.completion",
        choices: [{ message: { role: "assistant", content: "ok" } }],
      },
      responses: {
        object: "response",
        output: [{
          type: "message",
          id: "m1",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "ok", annotations: [] }],
        }],
      },
      aiSdk: {
        response: {
          messages: [{
            role: "assistant",
            content: [{ type: "text", text: "ok" }],
          }],
        },
      },
    };
    const last = {
      anthropic: {
        role: "system",
        content: [{
          type: "text",
          text: `The system prompt's section "git" now reads:\n\nOn fix.`,
        }],
      },
      chat: {
        role: "developer",
        content: [{
          type: "text",
          text: `The system prompt's section "git" now reads:\n\nOn fix.`,
        }],
      },
      responses: {
        role: "developer",
        content: [{
          type: "input_text",
          text: `The system prompt's section "git" now reads:\n\nOn fix.`,
        }],
      },
      aiSdk: {
        role: "system",
        content: `The system prompt's section "git" now reads:\n\nOn fix.`,
      },
    };
    for (const [name, start] of Object.entries(starts)) {
      const { prompt, state } = registry();
      const conv = start(prompt);
      conv.user("Go.");
      const first = await conv.request() as unknown as Record<string, unknown>;
      // deno-lint-ignore no-explicit-any
      conv.record(answers[name as keyof typeof answers] as any);
      state.branch = "fix";
      conv.user("Again.");
      const second = await conv.request() as unknown as Record<string, unknown>;
      const items = (second.messages ?? second.input) as unknown[];
      const marked = JSON.stringify(items.at(-1));
      // The mark (where the form marks) is left out of the comparison.
      const sent = JSON.parse(
        marked.replace(
          /,"(cache_control|prompt_cache_breakpoint)":\{[^}]*\}/g,
          "",
        ),
      );
      assert.deepEqual(sent, last[name as keyof typeof last], name);
      assert.equal(
        JSON.stringify(second.system ?? items[0]).replace(
          /"cache_control":\{[^}]*\}/g,
          "",
        ),
        JSON.stringify(
          first.system ?? ((first.messages ?? first.input) as unknown[])[0],
        )
          .replace(/"cache_control":\{[^}]*\}/g, ""),
        name,
      );
      await prompt.dispose();
    }
  });

  it("AI SDK: the body allows system messages from the step one is sent in, for the rest of the conversation", async () => {
    const { prompt, state } = registry();
    const conv = aiSdkConversation(prompt);
    const answer = {
      response: {
        messages: [{
          role: "assistant",
          content: [{ type: "text", text: "ok" }],
        }],
      },
    };
    const allows: unknown[] = [];
    for (const branch of ["main", "main", "fix", "fix", "fix"]) {
      state.branch = branch;
      conv.user("Go.");
      const body = await conv.request() as unknown as Record<string, unknown>;
      allows.push(body.allowSystemInMessages);
      // deno-lint-ignore no-explicit-any
      conv.record(answer as any);
    }
    // Told in the third step's tail, then held in the history.
    assert.deepEqual(allows, [undefined, undefined, true, true, true]);
    // A resumed conversation holds it in the history it read.
    const resumed = resumeAiSdkConversation(prompt, conv.save());
    resumed.user("Go.");
    const body = await resumed.request() as unknown as Record<string, unknown>;
    assert.equal(body.allowSystemInMessages, true);
    await prompt.dispose();
  });

  it("changes rebuild: 0.4's bytes, the system prompt rebuilt", async () => {
    const { prompt, state } = registry();
    const conv = anthropicConversation(prompt, {
      model: "m",
      max_tokens: 64,
      changes: "rebuild",
    });
    conv.user("Go.");
    await conv.request();
    conv.record(message([{ type: "text", text: "ok" }]));
    state.branch = "fix";
    conv.user("Again.");
    const body = await conv.request();
    assert.match(JSON.stringify(body.system), /On fix\./);
    assert.deepEqual(body.messages.map((m) => m.role), [
      "user",
      "assistant",
      "user",
    ]);
    await prompt.dispose();
  });

  it("reads the changes option: modes, per kind, the toolChanges alias, refusals", () => {
    const prompt = new SystemPrompt();
    const start = (options: Record<string, unknown>) =>
      anthropicConversation(prompt, { model: "m", max_tokens: 64, ...options });
    assert.throws(
      () => start({ changes: "sometimes" }),
      code("INVALID_CONFIG"),
    );
    assert.throws(
      () => start({ changes: { effort: "inline" } }),
      code("INVALID_CONFIG"),
    );
    assert.throws(
      () => start({ changes: { tools: "rebuild" }, toolChanges: "inline" }),
      code("INVALID_CONFIG"),
    );
    assert.throws(
      () =>
        chatConversation(prompt, {
          model: "m",
          changes: { tools: "inline" },
        } as never),
      /chatConversation has no inline tool changes/,
    );
    const saved = JSON.parse(
      start({ changes: { sections: "rebuild" } }).save().split("\n")[0],
    );
    assert.deepEqual(saved.options.changes, { sections: "rebuild" });
  });

  it("effort: top-level on the first request; then Responses a configuration_update (auto: once reasoning is bound), Chat the top-level field; resumed the same", async () => {
    const prompt = new SystemPrompt({ persona: "You are terse." });
    const reasoning = {
      object: "response",
      output: [{
        type: "reasoning",
        id: "rs_1",
        summary: [],
        encrypted_content: "enc",
      }, {
        type: "message",
        id: "m1",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "ok", annotations: [] }],
      }],
    };
    const responses = responsesConversation(prompt, { model: "m" });
    responses.user("Go.");
    const first = await responses.request({}, { output: { effort: "low" } });
    assert.deepEqual(first.reasoning, { effort: "low" });
    responses.record(reasoning as never);
    responses.user("Again.");
    const second = await responses.request({}, {
      output: { effort: "high" },
    });
    assert.deepEqual(second.reasoning, { effort: "low" });
    assert.deepEqual(second.input.at(-1), {
      type: "configuration_update",
      reasoning: { effort: "high" },
    });
    // The end mark went on the item before it.
    responses.record(reasoning as never);
    const saved = responses.save();
    responses.user("Once more.");
    const third = await responses.request();
    const resumed = resumeResponsesConversation(prompt, saved);
    resumed.user("Once more.");
    assert.equal(
      JSON.stringify(await resumed.request()),
      JSON.stringify(third),
    );
    assert.equal(
      JSON.stringify(third).match(/configuration_update/g)?.length,
      1,
    );

    const chat = chatConversation(prompt, { model: "m" });
    chat.user("Go.");
    assert.equal(
      (await chat.request({}, { output: { effort: "low" } })).reasoning_effort,
      "low",
    );
    chat.record({
      object: "chat.completion",
      choices: [{ message: { role: "assistant", content: "ok" } }],
    } as never);
    chat.user("Again.");
    assert.equal(
      (await chat.request({}, { output: { effort: "high" } })).reasoning_effort,
      "high",
    );
    assert.throws(
      () =>
        chatConversation(prompt, {
          model: "m",
          changes: { output: "inline" },
        } as never),
      /no per-message output settings/,
    );
    const ai = aiSdkConversation(prompt);
    ai.user("Go.");
    await assert.rejects(
      ai.request({}, { output: { effort: "low" } }),
      code("INVALID_CONFIG"),
    );
    await assert.rejects(
      chat.request({}, { output: { effort: "extreme" as "low" } }),
      code("INVALID_CONFIG"),
    );
    await prompt.dispose();
  });

  it("after a compaction the section changes are told again (the summary replaced them)", async () => {
    const { prompt, state } = registry();
    // A long section after the changed one: restating the change sends
    // fewer bytes than rewriting the system prompt from it (else rebuilt:
    // compaction_restate_test.ts).
    prompt.section({
      name: "rules",
      order: 30,
      text: "Keep every change small. ".repeat(10),
    });
    const conv = chatConversation(prompt, { model: "m" });
    const answer = (text: string) =>
      ({
        object: "chat.completion",
        choices: [{ message: { role: "assistant", content: text } }],
      }) as never;
    conv.user("Go.");
    await conv.request();
    conv.record(answer("ok"));
    state.branch = "fix";
    conv.user("Again.");
    const told = JSON.stringify(await conv.request());
    const change = JSON.stringify(`section "git" now reads:\n\nOn fix.`)
      .slice(1, -1);
    assert.ok(told.includes(change));
    conv.record(answer("ok"));
    const compaction = await conv.compact();
    compaction.record(answer("The summary."));
    conv.user("Next.");
    const after = await conv.request();
    const text = JSON.stringify(after.messages);
    assert.match(text, /The summary\./);
    // After the summary, the change again.
    assert.ok(text.indexOf(change) > text.indexOf("The summary."));
    assert.equal(
      JSON.stringify(after.messages[0]),
      JSON.stringify(JSON.parse(told).messages[0]),
    );
    await prompt.dispose();
  });

  it("resumes with options that shape the head anew (Chat's cache), the history kept", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.section({ name: "rules", order: 10, text: "Be brief." });
    const chat = chatConversation(prompt, { model: "m" });
    chat.user("Go.");
    const first = await chat.request();
    chat.record({
      object: "chat.completion",
      choices: [{ message: { role: "assistant", content: "ok" } }],
    } as never);
    const resumed = resumeChatConversation(prompt, chat.save(), {
      cache: true,
    });
    resumed.user("Again.");
    const next = await resumed.request();
    // The system message takes the new option's shape; the history after
    // it is the one sent.
    assert.notEqual(
      JSON.stringify(next.messages[0]),
      JSON.stringify(first.messages[0]),
    );
    const unmarked = (items: readonly unknown[]) =>
      JSON.stringify(
        items,
        (key, value) => key === "prompt_cache_breakpoint" ? undefined : value,
      );
    assert.equal(
      unmarked(next.messages.slice(1, 2)),
      unmarked(first.messages.slice(1, 2)),
    );
    resumed.record({
      object: "chat.completion",
      choices: [{ message: { role: "assistant", content: "ok" } }],
    } as never);
    resumed.user("Once more.");
    const third = await resumed.request();
    assert.equal(
      unmarked(third.messages.slice(0, 4)),
      unmarked(next.messages.slice(0, 4)),
    );
    await prompt.dispose();
  });

  it("refuses a request that would edit the previous one (a bug, never reached)", () => {
    const item = { role: "user", content: [{ type: "text", text: "a" }] };
    const history = History.empty<unknown>().append([item]);
    const head = JSON.stringify({ system: [{ type: "text", text: "x" }] });
    const sent = (system: string, placed: Placement<unknown>[] = []) => ({
      head: { system: [{ type: "text", text: system, cache_control: {} }] },
      history,
      placed,
    });
    const marked = {
      ...item,
      content: [{ type: "text", text: "a", cache_control: {} }],
    };
    checkAppendOnly(
      { head, history, keys: ["system"] },
      sent("x", [{ at: 0, item: marked }]),
    );
    assert.throws(
      () =>
        checkAppendOnly(
          { head, history, keys: ["system"] },
          sent("y"),
        ),
      code("APPEND_ONLY_VIOLATION"),
    );
    assert.throws(
      () =>
        checkAppendOnly(
          { head, history, keys: [] },
          sent("y", [{
            at: 0,
            item: { role: "user", content: [{ type: "text", text: "b" }] },
          }]),
        ),
      /history item 0/,
    );
    assert.throws(
      () =>
        checkAppendOnly(
          { head, history, keys: [] },
          { ...sent("x"), history: History.empty<unknown>().append([marked]) },
        ),
      /previous request's history/,
    );
  });

  it("compares a head's key with the JSON its own check kept, and only for that head", () => {
    const history = History.empty<unknown>();
    const head = JSON.stringify({ system: [{ type: "text", text: "x" }] });
    const sent = (system: string) => ({
      head: { system: [{ type: "text", text: system, cache_control: {} }] },
      history,
      placed: [],
    });
    const json = checkAppendOnly(
      { head, history, keys: ["system"] },
      sent("x"),
    );
    assert.deepEqual([...json], [["system", '[{"type":"text","text":"x"}]']]);
    // The kept JSON is what the next check reads: a head it does not
    // parse (not JSON) is never read.
    const next = JSON.stringify({ system: "unread" }).slice(1);
    const checked = { head: next, json };
    checkAppendOnly(
      { head: next, history, keys: ["system"], checked },
      sent("x"),
    );
    assert.throws(
      () =>
        checkAppendOnly(
          { head: next, history, keys: ["system"], checked },
          sent("y"),
        ),
      code("APPEND_ONLY_VIOLATION"),
    );
    // Kept for another head: the head itself is read again.
    assert.throws(
      () =>
        checkAppendOnly(
          {
            head: JSON.stringify({ system: [{ type: "text", text: "z" }] }),
            history,
            keys: ["system"],
            checked,
          },
          sent("x"),
        ),
      code("APPEND_ONLY_VIOLATION"),
    );
  });
});
