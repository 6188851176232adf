/**
 * SPEC 9.8 "Tool changes": OpenAI Responses with `toolChanges: "inline"`
 * keeps the first request's tools block; an added tool goes in an
 * `additional_tools` input item after the tool outputs, a dropped one stays
 * listed and leaves `allowed_tools`, a changed definition rebuilds the
 * block (the API takes no second definition under one name); save and
 * resume keeps what the model has.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  responsesConversation,
  type ResponsesTool,
  resumeResponsesConversation,
} from "../../adapters/openai/mod.ts";
import { SystemPromptError } from "../../mod.ts";
import {
  agent,
  continues,
  responsesAnswer,
  schema,
  unmarked,
} from "./helpers.ts";

const OPTIONS = {
  model: "gpt-5.6",
  cache: true,
  session: "s-1",
  toolChanges: "inline" as const,
};

const tool = (name: string, description = `The ${name} tool.`) => ({
  type: "function",
  name,
  description,
  parameters: schema(name).parameters,
  strict: false,
});

describe("Responses inline tool changes", () => {
  it("keeps the tools block and adds tools in additional_tools items", async () => {
    const a = agent();
    const conv = responsesConversation(a.prompt, OPTIONS);
    conv.user("Go.");
    const first = await conv.request();
    assert.equal(first.tool_choice, undefined);
    conv.record(responsesAnswer([{ id: "c1", name: "read_file" }]) as never);
    conv.toolResult("c1", "text");
    a.tools = [schema("read_file"), schema("grep")]; // shell dropped, grep added
    a.branch = "dev"; // an update after the item
    const second = await conv.request();
    assert.equal(JSON.stringify(second.tools), JSON.stringify(first.tools));
    const input = second.input as Record<string, unknown>[];
    assert.deepEqual(input.at(-2), {
      type: "additional_tools",
      role: "developer",
      tools: [tool("grep")],
    });
    assert.equal(input.at(-3)!.type, "function_call_output");
    assert.equal((input.at(-1) as { role: string }).role, "user");
    assert.deepEqual(second.tool_choice, {
      type: "allowed_tools",
      mode: "auto",
      tools: [
        { type: "function", name: "grep" },
        { type: "function", name: "read_file" },
      ],
    });
    assert.ok(continues(first.input, second.input));
    // A call of the dropped tool is refused; the added one runs.
    const calls = conv.record(
      responsesAnswer([{ id: "c2", name: "shell" }, {
        id: "c3",
        name: "grep",
      }]) as never,
    );
    assert.deepEqual(calls.map((call) => call.name), ["grep"]);
    conv.toolResult("c3", "found");
    // shell comes back: active again, nothing new declared.
    a.tools = [schema("read_file"), schema("shell"), schema("grep")];
    const third = await conv.request();
    assert.equal(JSON.stringify(third.tools), JSON.stringify(first.tools));
    assert.equal(
      (third.input as { type?: string }[]).filter((item) =>
        item.type === "additional_tools"
      ).length,
      1,
    );
    // Every tool the model has is the registry's again: no allowed list.
    assert.equal(third.tool_choice, undefined);
    // Resumed, the next request is the same bytes.
    assert.throws(
      () => resumeResponsesConversation(a.prompt, conv.save()),
      (error: unknown) =>
        error instanceof SystemPromptError && error.code === "INVALID_CONFIG",
    );
    const again = resumeResponsesConversation(a.prompt, conv.save(), {
      toolChanges: "inline",
    });
    again.toolResult("c3", "found");
    assert.equal(JSON.stringify(await again.request()), JSON.stringify(third));
    await a.prompt.dispose();
  });

  it("marks the item before an additional_tools item that ends a request", async () => {
    const a = agent();
    const conv = responsesConversation(a.prompt, OPTIONS);
    conv.user("Go.");
    await conv.request();
    conv.record(responsesAnswer([{ id: "c1", name: "read_file" }]) as never);
    conv.toolResult("c1", "text");
    a.tools = [schema("read_file"), schema("shell"), schema("grep")];
    const body = await conv.request();
    const input = body.input as Record<string, unknown>[];
    assert.equal(input.at(-1)!.type, "additional_tools");
    const output = input.at(-2)!.output as Record<string, unknown>[];
    assert.ok(output.at(-1)!.prompt_cache_breakpoint !== undefined);
    // Every tool is active, grep through its item: no tool choice, the
    // head (and the cache's key) the previous request's.
    assert.equal(body.tool_choice, undefined);
    await a.prompt.dispose();
  });

  it("rebuilds the tools block for a changed definition", async () => {
    const a = agent();
    const conv = responsesConversation(a.prompt, OPTIONS);
    conv.user("Go.");
    const first = await conv.request();
    conv.record(responsesAnswer([]) as never);
    a.tools = [schema("read_file", "Read a file, faster."), schema("shell")];
    conv.user("Again.");
    const second = await conv.request();
    assert.deepEqual(unmarked(second.tools), [
      tool("read_file", "Read a file, faster."),
      tool("shell"),
    ]);
    assert.ok(
      !(second.input as { type?: string }[]).some((item) =>
        item.type === "additional_tools"
      ),
    );
    assert.equal(second.tool_choice, undefined);
    assert.notEqual(JSON.stringify(second.tools), JSON.stringify(first.tools));
    conv.record(responsesAnswer([]) as never);
    // A tool that came inline and is redefined joins the block in place.
    a.tools = [schema("read_file", "Read a file, faster."), schema("grep")];
    conv.user("More.");
    await conv.request();
    conv.record(responsesAnswer([]) as never);
    a.tools = [
      schema("read_file", "Read a file, faster."),
      schema("grep", "Search files."),
    ];
    conv.user("Last.");
    const fourth = await conv.request();
    assert.deepEqual(
      (fourth.tools as ResponsesTool[] ?? []).map((
        t,
      ) => [t.name, t.description]),
      [
        ["grep", "Search files."],
        ["read_file", "Read a file, faster."],
        ["shell", "The shell tool."],
      ],
    );
    assert.deepEqual(
      (fourth.tool_choice as { tools: { name: string }[] }).tools.map((t) =>
        t.name
      ),
      ["grep", "read_file"],
    );
    const again = resumeResponsesConversation(a.prompt, conv.save(), {
      toolChanges: "inline",
    });
    again.user("Last.");
    assert.equal(JSON.stringify(await again.request()), JSON.stringify(fourth));
    await a.prompt.dispose();
  });

  it("never declares a name twice: a tool back from inline with another definition joins the block", async () => {
    const a = agent();
    const conv = responsesConversation(a.prompt, OPTIONS);
    const step = async (tools: ReturnType<typeof schema>[]) => {
      a.tools = tools;
      conv.user("Next.");
      const body = await conv.request();
      conv.record(responsesAnswer([]) as never);
      return body;
    };
    await step([schema("read_file"), schema("shell")]);
    await step([schema("read_file"), schema("shell"), schema("grep")]);
    await step([schema("read_file"), schema("shell")]); // grep dropped
    const back = await step([
      schema("read_file"),
      schema("shell"),
      schema("grep"),
    ]);
    await step([schema("read_file"), schema("shell")]); // dropped again
    const changed = await step([
      schema("read_file"),
      schema("shell"),
      schema("grep", "Search files."),
    ]);
    const declared = (body: { input: unknown[] }) =>
      (body.input as { type?: string; tools?: { name: string }[] }[])
        .flatMap((item) =>
          item.type === "additional_tools" ? item.tools!.map((t) => t.name) : []
        );
    assert.deepEqual(declared(back), ["grep"]);
    assert.deepEqual(declared(changed), ["grep"]);
    assert.deepEqual(
      (changed.tools as ResponsesTool[] ?? []).map((
        t,
      ) => [t.name, t.description]),
      [
        ["grep", "Search files."],
        ["read_file", "The read_file tool."],
        ["shell", "The shell tool."],
      ],
    );
    // Dropped and back again, resumed: the same bytes.
    const again = resumeResponsesConversation(a.prompt, conv.save(), {
      toolChanges: "inline",
    });
    a.tools = [schema("read_file"), schema("grep", "Search files.")];
    conv.user("Last.");
    again.user("Last.");
    assert.equal(
      JSON.stringify(await again.request()),
      JSON.stringify(await conv.request()),
    );
    await a.prompt.dispose();
  });

  it("a fork lists its parent's tools and adds its own in an item", async () => {
    const a = agent();
    a.prompt.scope("reviewer").tools(() => ({
      schemas: [schema("annotate")],
    }));
    const parent = responsesConversation(a.prompt, OPTIONS);
    parent.user("Plan.");
    const parentBody = await parent.request();
    parent.record(responsesAnswer([]) as never);
    const child = parent.fork();
    child.user("Review.");
    const first = await child.request({ scope: "reviewer" });
    assert.equal(JSON.stringify(first.tools), JSON.stringify(parentBody.tools));
    assert.equal(first.prompt_cache_key, parentBody.prompt_cache_key);
    const items =
      (first.input as { type?: string; tools?: { name: string }[] }[])
        .filter((item) => item.type === "additional_tools");
    assert.deepEqual(items.map((item) => item.tools!.map((t) => t.name)), [[
      "annotate",
    ]]);
    await a.prompt.dispose();
  });

  it("rejects an unknown toolChanges", () => {
    const a = agent();
    assert.throws(
      () =>
        responsesConversation(a.prompt, {
          model: "gpt-5.6",
          toolChanges: "later" as "inline",
        }),
      (error: unknown) =>
        error instanceof SystemPromptError && error.code === "INVALID_CONFIG" &&
        /toolChanges/.test(error.message),
    );
  });
});
