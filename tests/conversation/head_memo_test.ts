/**
 * A step's head is built by its form only when what it is built from
 * changed (issue 49, `head_memo.ts`): the same data in fresh objects reuses
 * the last head, any change in the input builds it again, and the head a
 * form built is frozen. Through a conversation: a steady registry builds
 * its head once, a change of a section, a tool, a variable or the runtime
 * context reaches the next body, and the body's system blocks and tools
 * cannot be changed under the next request.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt } from "../../mod.ts";
import { anthropicConversation } from "../../adapters/anthropic/mod.ts";
import { headFrom } from "../../src/conversation/head_memo.ts";
import type { HeadInput } from "../../src/conversation/form.ts";
import type { PromptAssembly } from "../../src/types.ts";

function assembly(text: string, variable = "main"): PromptAssembly {
  return {
    sections: [{ name: "persona", order: 0, text }],
    tools: [{
      name: "shell",
      description: "Run a command.",
      parameters: { type: "object", properties: { cmd: { type: "string" } } },
    }],
    variables: { branch: variable },
  };
}

function input(text: string, extra: Partial<HeadInput> = {}): HeadInput {
  return {
    assembly: assembly(text),
    awaiting: "agent",
    session: "s",
    state: {},
    prefixBudget: 3,
    ...extra,
  };
}

/** A form's head builder that counts its builds. */
function counting() {
  let builds = 0;
  return {
    get builds() {
      return builds;
    },
    head(input: HeadInput) {
      builds++;
      return {
        recorded: {
          system: input.assembly.sections.map((section) => ({
            text: section.text,
          })),
          tools: input.assembly.tools,
        },
        state: {},
      };
    },
  };
}

describe("headFrom", () => {
  it("reuses the last head for the same data in fresh objects", () => {
    const builder = counting();
    const first = headFrom(builder, input("You help."), undefined);
    const second = headFrom(builder, input("You help."), first);
    assert.equal(builder.builds, 1);
    assert.equal(second.head, first.head);
  });

  it("builds again when anything in the input changed", () => {
    const changes: [string, HeadInput][] = [
      ["a section's text", input("You help well.")],
      ["a variable", {
        ...input("You help."),
        assembly: assembly("You help.", "fix"),
      }],
      ["a tool's parameter", {
        ...input("You help."),
        assembly: {
          ...assembly("You help."),
          tools: [{
            name: "shell",
            description: "Run a command.",
            parameters: {
              type: "object",
              properties: { cmd: { type: "number" } },
            },
          }],
        },
      }],
      ["the runtime context", {
        ...input("You help."),
        assembly: {
          ...assembly("You help."),
          runtimeContext: [{ name: "date", order: 0, text: "Monday" }],
        },
      }],
      ["the awaiting", input("You help.", { awaiting: "person" })],
      ["the mark budget", input("You help.", { prefixBudget: 2 })],
      ["the effort", input("You help.", { effort: "high" })],
      ["the reminder", input("You help.", { reminder: "Be brief." })],
      ["the state", input("You help.", { state: { toolBetas: true } })],
    ];
    for (const [what, changed] of changes) {
      const builder = counting();
      const first = headFrom(builder, input("You help."), undefined);
      const next = headFrom(builder, changed, first);
      assert.equal(builder.builds, 2, what);
      assert.notEqual(next.head, first.head, what);
    }
  });

  it("freezes the head it built, all the way down", () => {
    const { head } = headFrom(counting(), input("You help."), undefined);
    const recorded = head.recorded as {
      system: { text: string }[];
      tools: { parameters: { properties: Record<string, unknown> } }[];
    };
    assert.throws(() => recorded.system.push({ text: "more" }), TypeError);
    assert.throws(() => {
      recorded.tools[0].parameters.properties.extra = {};
    }, TypeError);
  });
});

describe("a conversation's head", () => {
  async function step(
    conv: ReturnType<typeof anthropicConversation>,
    text: string,
  ) {
    conv.user(text);
    const body = await conv.request();
    conv.record({
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: "ok" }],
      usage: { input_tokens: 10, output_tokens: 1 },
    });
    return body;
  }

  it("is sent again as the same objects while nothing changes, and a change reaches the next body", async () => {
    const prompt = new SystemPrompt({ persona: "You help." });
    let branch = "main";
    prompt.variable("branch", () => branch);
    let day = "Monday";
    prompt.runtimeContext({
      name: "date",
      order: 0,
      text: () => `It is ${day}.`,
    });
    const rule = prompt.section({
      name: "rules",
      order: 10,
      text: "Work on {{branch}}.",
    });
    prompt.tools(() => ({
      schemas: [{
        name: "shell",
        description: "Run a command.",
        parameters: {},
      }],
    }));
    const conv = anthropicConversation(prompt, {
      model: "claude-sonnet-4-5",
      max_tokens: 1024,
      changes: "rebuild",
    });
    const first = await step(conv, "one");
    const second = await step(conv, "two");
    assert.equal(second.system, first.system);
    assert.equal(second.tools, first.tools);
    // The body's blocks and tools are the conversation's: frozen.
    assert.throws(() => {
      (first.system as { text: string }[])[0].text = "changed";
    }, TypeError);
    // The runtime context goes in the tail: its change alone builds no head.
    day = "Tuesday";
    const next = await step(conv, "two and a half");
    assert.equal(next.system, first.system);
    assert.equal(next.tools, first.tools);
    assert.match(JSON.stringify(next.messages.at(-1)), /It is Tuesday\./);

    branch = "fix";
    const third = await step(conv, "three");
    assert.match(JSON.stringify(third.system), /Work on fix\./);
    await rule();
    const fourth = await step(conv, "four");
    assert.doesNotMatch(JSON.stringify(fourth.system), /Work on/);
    prompt.tools(() => ({
      schemas: [{ name: "grep", description: "Search.", parameters: {} }],
    }));
    const fifth = await step(conv, "five");
    assert.deepEqual(
      (fifth.tools as { name: string }[]).map((tool) => tool.name),
      ["grep", "shell"],
    );
    await prompt.dispose();
  });
});
