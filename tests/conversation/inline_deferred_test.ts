/**
 * SPEC 10.3 on 9.8 (cold-read finding 2): OpenAI Responses with deferred
 * tools and tool changes told inline. Whenever a request sends an
 * `allowed_tools` tool choice, it names `tool_search` and the active
 * deferred functions by their namespaces (with the pair, `find_tools` and
 * `call_tool`), whatever came first: the deferred tools or the change, a
 * removal, a resume, a compaction. A tool added alone sends no tool
 * choice at all, and a found deferred tool's call is never refused (on
 * Anthropic too, whose gates the conversation enforces).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt, type ToolSchema } from "../../mod.ts";
import { anthropicConversation } from "../../adapters/anthropic/mod.ts";
import {
  responsesConversation,
  resumeResponsesConversation,
} from "../../adapters/openai/mod.ts";

function tool(name: string): ToolSchema {
  return {
    name,
    description: `The ${name} tool.`,
    parameters: { type: "object", properties: {} },
  };
}

const TRACKER = [tool("tracker_close_issue"), tool("tracker_open_issue")];

/** A registry whose listed tools and gate the test drives. */
function registry({ deferred = true }: { deferred?: boolean } = {}) {
  const state = {
    tools: [tool("read_file"), tool("shell")],
    active: undefined as string[] | undefined,
  };
  const prompt = new SystemPrompt({ persona: "You are a coding agent." });
  prompt.tools(() => ({ schemas: state.tools }));
  prompt.toolGate(() => state.active);
  const defer = () =>
    prompt.fork({ label: "tracker" }).tools(() => ({ schemas: TRACKER }), {
      defer: true,
    });
  if (deferred) defer();
  return { prompt, state, defer };
}

type Body = { tool_choice?: unknown; input: unknown[]; tools?: unknown[] };

const reply = (output: Record<string, unknown>[]) =>
  ({ object: "response", output }) as never;

const text = {
  type: "message",
  id: "msg_1",
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text: "Done.", annotations: [] }],
};

const call = (id: string, name: string, namespace?: string) => ({
  type: "function_call",
  id: `fc_${id}`,
  call_id: id,
  name,
  ...(namespace === undefined ? {} : { namespace }),
  arguments: "{}",
  status: "completed",
});

/** The allowed list of a request with every tracker tool active. */
const allowing = (...listed: string[]) => ({
  type: "allowed_tools",
  mode: "auto",
  tools: [
    ...listed.map((name) => ({ type: "function", name })),
    { type: "tool_search" },
    { type: "function", name: "tracker_close_issue", namespace: "tracker" },
    { type: "function", name: "tracker_open_issue", namespace: "tracker" },
  ],
});

/**
 * A Responses conversation (`options` over gpt-5.6) whose first request,
 * "Hi.", was answered with a text.
 */
async function answeredOnce(
  prompt: SystemPrompt,
  options: Omit<Parameters<typeof responsesConversation>[1], "model"> = {},
) {
  const conv = responsesConversation(prompt, { model: "gpt-5.6", ...options });
  conv.user("Hi.");
  await conv.request();
  conv.record(reply([text]));
  return conv;
}

describe("Responses inline tool changes with deferred tools", () => {
  it("a tool added after a reasoning answer sends no tool choice; a found deferred tool is called", async () => {
    const { prompt, state } = registry();
    const conv = responsesConversation(prompt, { model: "gpt-5.6" });
    conv.user("Hi.");
    const first = await conv.request() as Body;
    assert.equal(first.tool_choice, undefined);
    conv.record(reply([
      { id: "rs_1", type: "reasoning", summary: [], encrypted_content: "sig" },
      text,
    ]));
    state.tools = [...state.tools, tool("run_linter")];
    conv.user("Lint, then close issue 7.");
    const second = await conv.request() as Body;
    assert.ok(
      second.input.some((item) =>
        (item as { type?: string }).type === "additional_tools"
      ),
    );
    // Every tool the model has is active: it may call any of them, the
    // deferred ones after a search.
    assert.equal(second.tool_choice, undefined);
    const calls = conv.record(reply([
      call("c1", "tracker_close_issue", "tracker"),
      call("c2", "run_linter"),
    ]));
    assert.deepEqual(calls.map((c) => c.name), [
      "tracker_close_issue",
      "run_linter",
    ]);
    await prompt.dispose();
  });

  it("a removal's allowed list keeps tool_search and the deferred tools; the removed tool is refused", async () => {
    const { prompt, state } = registry();
    const conv = await answeredOnce(prompt, {
      changes: "inline",
    });
    state.tools = [tool("read_file"), tool("run_linter")]; // shell dropped
    conv.user("Lint, then close issue 7.");
    const second = await conv.request() as Body;
    assert.deepEqual(second.tool_choice, allowing("read_file", "run_linter"));
    const calls = conv.record(reply([
      call("c1", "tracker_close_issue", "tracker"),
      call("c2", "shell"),
    ]));
    assert.deepEqual(calls.map((c) => c.name), ["tracker_close_issue"]);
    conv.toolResult("c1", "closed");
    // Resumed, the next request is the same bytes.
    const resumed = resumeResponsesConversation(prompt, conv.save());
    resumed.toolResult("c1", "closed");
    const third = await conv.request() as Body;
    assert.deepEqual(third.tool_choice, allowing("read_file", "run_linter"));
    assert.equal(
      JSON.stringify(await resumed.request()),
      JSON.stringify(third),
    );
    await prompt.dispose();
  });

  it("deferred tools registered after a removal join the allowed list (tools rebuilt)", async () => {
    const { prompt, state, defer } = registry({ deferred: false });
    // Rebuilt: deferred tools arriving mid-conversation rebuild the block.
    const conv = await answeredOnce(prompt);
    state.tools = [tool("read_file")];
    conv.user("Read.");
    const second = await conv.request() as Body;
    assert.deepEqual(second.tool_choice, {
      type: "allowed_tools",
      mode: "auto",
      tools: [{ type: "function", name: "read_file" }],
    });
    conv.record(reply([text]));
    defer();
    conv.user("Close issue 7.");
    const third = await conv.request() as Body;
    assert.deepEqual(third.tool_choice, allowing("read_file"));
    await prompt.dispose();
  });

  it("with gates, only the active deferred tools, by namespace; none active lists no tool_search", async () => {
    const { prompt, state } = registry();
    state.active = ["read_file", "tracker_open_issue"];
    const conv = responsesConversation(prompt, {
      model: "gpt-5.6",
      changes: "inline",
    });
    conv.user("Hi.");
    const first = await conv.request() as Body;
    const gated = {
      type: "allowed_tools",
      mode: "auto",
      tools: [
        { type: "function", name: "read_file" },
        { type: "tool_search" },
        { type: "function", name: "tracker_open_issue", namespace: "tracker" },
      ],
    };
    assert.deepEqual(first.tool_choice, gated);
    conv.record(reply([text]));
    state.tools = [...state.tools, tool("run_linter")];
    conv.user("Again.");
    const second = await conv.request() as Body;
    assert.deepEqual(second.tool_choice, gated);
    conv.record(reply([text]));
    state.active = ["run_linter"];
    conv.user("Lint.");
    const third = await conv.request() as Body;
    assert.deepEqual(third.tool_choice, {
      type: "allowed_tools",
      mode: "auto",
      tools: [{ type: "function", name: "run_linter" }],
    });
    await prompt.dispose();
  });

  it("after a compaction the allowed list still names tool_search and the deferred tools", async () => {
    const { prompt, state } = registry();
    const conv = await answeredOnce(prompt, {
      changes: "inline",
    });
    state.tools = [tool("read_file"), tool("run_linter")];
    conv.user("Lint.");
    await conv.request();
    conv.record(reply([text]));
    const compaction = await conv.compact();
    compaction.record(
      reply([{ type: "compaction", id: "cmp_1", encrypted_content: "enc" }]),
    );
    conv.user("Close issue 7.");
    const after = await conv.request() as Body;
    assert.deepEqual(after.tool_choice, allowing("read_file", "run_linter"));
    await prompt.dispose();
  });

  it("with the pair, the allowed list names find_tools and call_tool, no deferred function", async () => {
    const { prompt, state } = registry();
    const conv = await answeredOnce(prompt, {
      changes: "inline",
      toolSearch: "pair",
    });
    state.tools = [tool("read_file")];
    conv.user("Close issue 7.");
    const second = await conv.request() as Body;
    assert.deepEqual(second.tool_choice, {
      type: "allowed_tools",
      mode: "auto",
      tools: ["read_file", "find_tools", "call_tool"].map((name) => ({
        type: "function",
        name,
      })),
    });
    await prompt.dispose();
  });
});

describe("Anthropic inline tool changes with deferred tools", () => {
  it("after a removal, a found deferred tool's call is returned, the removed tool's refused", async () => {
    const { prompt, state } = registry();
    const conv = anthropicConversation(prompt, {
      model: "claude-opus-4-5",
      max_tokens: 100,
      changes: "inline",
    });
    const answer = (content: Record<string, unknown>[]) =>
      ({
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-opus-4-5",
        content,
        stop_reason: "end_turn",
        usage: { input_tokens: 1, output_tokens: 1 },
      }) as never;
    conv.user("Hi.");
    await conv.request();
    conv.record(answer([{ type: "text", text: "Hello." }]));
    state.tools = [tool("read_file")]; // shell dropped
    conv.user("Close issue 7.");
    await conv.request();
    const calls = conv.record(answer([
      { type: "tool_use", id: "t1", name: "tracker_close_issue", input: {} },
      { type: "tool_use", id: "t2", name: "shell", input: {} },
    ]));
    assert.deepEqual(calls.map((c) => c.name), ["tracker_close_issue"]);
    await prompt.dispose();
  });
});
