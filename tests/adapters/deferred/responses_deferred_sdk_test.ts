// Deno-only: `responsesConversation` on 300 deferred MCP tools, its bodies
// sent through the real `openai` client's `responses.create` to a loopback
// server holding OpenAI's deferred-tool rules (responses_tool_search.ts).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { searchTools, SystemPrompt, toolSearchIndex } from "../../../mod.ts";
import {
  type ResponsesConversation,
  responsesConversation,
  resumeResponsesConversation,
} from "../../../adapters/openai/mod.ts";
import type { McpToolSource } from "../../../adapters/mcp/mod.ts";
import { SDK_PERMISSIONS } from "../sdk_permissions.ts";
import {
  deferredRegistry,
  READ_FILE,
  SEARCH_RULES,
} from "./deferred_registry_sdk.ts";
import { FOUND, SERVERS } from "./mcp_servers.ts";
import {
  responsesToolSearchServer,
  type ResponsesTurn,
} from "./responses_tool_search.ts";
import { savingOfBodies } from "./deferred_saving.ts";
import { serveRules } from "./rule_server.ts";

type Answer = Parameters<ResponsesConversation["record"]>[0];

/** The namespace of `name` in a body's tools. */
function namespaceIn(body: Record<string, unknown>, name: string): string {
  for (const tool of body.tools as Record<string, unknown>[]) {
    if (
      tool.type === "namespace" &&
      (tool.tools as { name: string }[]).some((fn) => fn.name === name)
    ) return tool.name as string;
  }
  throw new Error(`no namespace holds ${name}`);
}

/** Each of the 8 found tools searched and called in turn, then text. */
function script(body: Record<string, unknown>, n: number): ResponsesTurn {
  return n < FOUND.length
    ? {
      search: FOUND[n].query,
      call: {
        name: FOUND[n].name,
        namespace: namespaceIn(body, FOUND[n].name),
        arguments: FOUND[n].args,
      },
    }
    : { text: "All done." };
}

function client(baseURL: string): OpenAI {
  return new OpenAI({
    apiKey: "sk-loopback",
    baseURL,
    maxRetries: 0,
    timeout: 10_000,
  });
}

describe("responsesConversation with 300 deferred MCP tools, through openai", {
  skip: SDK_PERMISSIONS,
}, () => {
  let close: () => Promise<void>;
  let prompt: SystemPrompt;
  const sources: McpToolSource[] = [];

  before(async () => {
    const registry = await deferredRegistry({
      section: SEARCH_RULES,
      stable: true,
    });
    ({ prompt, close } = registry);
    sources.push(...registry.sources);
  });

  after(async () => {
    await prompt.dispose();
    await close();
  });

  /** Runs `conv` for at most `steps` requests, each call sent to its server. */
  async function drive(
    conv: ResponsesConversation,
    openai: OpenAI,
    steps: number,
  ): Promise<string[]> {
    const called: string[] = [];
    for (let step = 0; step < steps; step++) {
      const answer = await openai.responses.create(await conv.request());
      const calls = conv.record(answer as unknown as Answer);
      const searching = answer.output.some((item) =>
        item.type === "tool_search_call" && item.execution === "client"
      );
      if (calls.length === 0 && !searching) break;
      for (const call of calls) {
        const source = sources.find((one) => one.owns(call.name))!;
        const result = await source.call(call.name, call.input);
        called.push(call.name);
        const [first] = result.content as { text: string }[];
        conv.toolResult(call.id, first.text);
      }
    }
    return called;
  }

  it("server search: 8 tools found and used; every body's tools and system are the first's", async () => {
    const server = responsesToolSearchServer(script);
    const conv = responsesConversation(prompt, { model: "gpt-loopback" });
    conv.user("Work through today's queue.");
    let called: string[] = [];
    await serveRules(server.answer, async (baseURL) => {
      called = await drive(conv, client(baseURL), FOUND.length + 1);
    });
    assert.deepEqual(server.rejections, []);
    assert.deepEqual(called, FOUND.map((found) => found.name));
    assert.equal(server.bodies.length, FOUND.length + 1);

    // report() reads the bodies: a deferred tool's definition is no prompt
    // token until the model loads it.
    const report = conv.report({
      countTokens: (text) => Math.ceil(text.length / 4),
    });
    assert.equal(report.totals.estimateError, undefined);
    // What deferring saved: every definition not loaded yet, per request.
    const saving = savingOfBodies(
      server.bodies,
      (text) => Math.ceil(text.length / 4),
    );
    assert.equal(saving.tools, 300);
    assert.ok(saving.found >= FOUND.length);
    assert.deepEqual(report.deferred, saving);
    const estimate = report.totals.estimate!;
    const everyTool = JSON.stringify(server.bodies[0].tools).length / 4;
    assert.ok(
      estimate.promptTokens / report.requests.length < everyTool / 2,
      `${estimate.promptTokens} vs ${everyTool}`,
    );

    const first = server.bodies[0];
    const tools = first.tools as Record<string, unknown>[];
    assert.deepEqual(tools[0], { type: "tool_search" });
    assert.equal(tools[1].name, "read_file");
    // One namespace per server, named from its label, in the canonical
    // order of each one's first tool (crm_…, gh_…, ops_…).
    const namespaces = tools.slice(2);
    const byPrefix = (prefix: string) =>
      SERVERS.find((plan) => plan.prefix === prefix)!.name;
    assert.deepEqual(
      namespaces.map((tool) => [tool.type, tool.name]),
      ["crm_", "gh_", "ops_"].map((prefix) => ["namespace", byPrefix(prefix)]),
    );
    let count = 0;
    for (const namespace of namespaces) {
      assert.match(String(namespace.description), /^Tools of registry\//);
      for (const fn of namespace.tools as Record<string, unknown>[]) {
        assert.equal(fn.defer_loading, true);
        count++;
      }
    }
    assert.equal(count, 300);
    const system = (first.input as unknown[])[0];
    for (const body of server.bodies) {
      assert.equal(JSON.stringify(body.tools), JSON.stringify(first.tools));
      assert.equal(
        JSON.stringify((body.input as unknown[])[0]),
        JSON.stringify(system),
      );
    }
    // The calls went out with their namespaces, and came back verbatim.
    const input = server.bodies.at(-1)!.input as Record<string, unknown>[];
    const calls = input.filter((item) => item.type === "function_call");
    assert.deepEqual(
      calls.map((item) => `${item.namespace}.${item.name}`),
      FOUND.map((found) => `${namespaceIn(first, found.name)}.${found.name}`),
    );
    // The cached prefix grows: each request reads the one before it.
    assert.ok(
      server.usages.slice(1).every((usage, n) =>
        usage.cached_tokens >= server.usages[n].input_tokens &&
        usage.cached_tokens > 0
      ),
    );
  });

  it("client search: the conversation answers each search with searchTools over the active deferred tools", async () => {
    // The model searches, then (next turn) calls what the search loaded.
    const server = responsesToolSearchServer((body, n) => {
      const at = Math.floor(n / 2);
      if (at >= 2) return { text: "Done." };
      return n % 2 === 0 ? { search: FOUND[at].query } : {
        call: {
          name: FOUND[at].name,
          namespace: namespaceIn(body, FOUND[at].name),
          arguments: FOUND[at].args,
        },
      };
    });
    const conv = responsesConversation(prompt, {
      model: "gpt-loopback",
      toolSearch: "client",
    });
    conv.user("Open the bug and list the pull requests.");
    let called: string[] = [];
    await serveRules(server.answer, async (baseURL) => {
      called = await drive(conv, client(baseURL), 5);
    });
    assert.deepEqual(server.rejections, []);
    assert.deepEqual(called, [FOUND[0].name, FOUND[1].name]);
    const tools = server.bodies[0].tools as Record<string, unknown>[];
    assert.equal(tools[0].type, "tool_search");
    assert.equal(tools[0].execution, "client");
    const assembly = await prompt.assemble();
    const index = toolSearchIndex(assembly.deferredTools!);
    const outputs = (server.bodies.at(-1)!.input as Record<string, unknown>[])
      .filter((item) => item.type === "tool_search_output");
    assert.equal(outputs.length, 2);
    outputs.forEach((output, at) => {
      const loaded = (output.tools as { tools: { name: string }[] }[])
        .flatMap((namespace) => namespace.tools.map((fn) => fn.name));
      const expected = searchTools(index, FOUND[at].query, { limit: 5 })
        .map((hit) => hit.tool.name);
      assert.deepEqual(loaded.toSorted(), expected.toSorted());
      assert.ok(loaded.includes(FOUND[at].name));
      assert.equal(output.execution, "client");
    });
    for (const body of server.bodies) {
      assert.equal(
        JSON.stringify(body.tools),
        JSON.stringify(server.bodies[0].tools),
      );
    }
  });

  it("with gates, tool_choice allows tool_search and the active deferred tools by namespace; a found one is called", async () => {
    const gated = new SystemPrompt({ includeHarnessIdentity: false });
    gated.section({ name: "rules", order: 10, text: "Be brief." });
    gated.tools(() => ({ schemas: [READ_FILE] }));
    const crm = sources.find((one) => one.owns("crm_get_contact"))!;
    gated.fork({ label: "crm" }).tools(crm.tools$, { defer: true });
    gated.toolGate(() => ["read_file", "crm_get_contact"]);
    const server = responsesToolSearchServer((_, n) =>
      n === 0
        ? {
          search: FOUND[3].query,
          call: { namespace: "crm", name: "crm_get_contact", arguments: {} },
        }
        : { text: "Done." }
    );
    const conv = responsesConversation(gated, { model: "gpt-loopback" });
    conv.user("Look Ada up.");
    const open: string[][] = [];
    await serveRules(server.answer, async (baseURL) => {
      const openai = client(baseURL);
      for (let step = 0; step < 2; step++) {
        const answer = await openai.responses.create(await conv.request());
        const calls = conv.record(answer as unknown as Answer);
        open.push(calls.map((call) => call.name));
        for (const call of calls) conv.toolResult(call.id, "ok");
      }
    });
    await gated.dispose();
    assert.deepEqual(server.rejections, []);
    assert.deepEqual(open, [["crm_get_contact"], []]);
    for (const body of server.bodies) {
      assert.deepEqual(body.tool_choice, {
        type: "allowed_tools",
        mode: "auto",
        tools: [
          { type: "function", name: "read_file" },
          { type: "tool_search" },
          { type: "function", name: "crm_get_contact", namespace: "crm" },
        ],
      });
      // The gates live in tool_choice: the tools block is the first's.
      assert.equal(
        JSON.stringify(body.tools),
        JSON.stringify(server.bodies[0].tools),
      );
    }
  });

  it("inline tool changes: a removal's tool_choice keeps tool_search and the deferred tools; a found one is called", async () => {
    const tools = [READ_FILE, { ...READ_FILE, name: "write_file" }];
    const inline = new SystemPrompt({ includeHarnessIdentity: false });
    inline.section({ name: "rules", order: 10, text: "Be brief." });
    inline.tools(() => ({ schemas: tools }));
    const crm = sources.find((one) => one.owns("crm_get_contact"))!;
    inline.fork({ label: "crm" }).tools(crm.tools$, { defer: true });
    const server = responsesToolSearchServer((_, n) =>
      n === 1
        ? {
          search: FOUND[3].query,
          call: { namespace: "crm", name: "crm_get_contact", arguments: {} },
        }
        : { text: "Done." }
    );
    const conv = responsesConversation(inline, {
      model: "gpt-loopback",
      changes: "inline",
    });
    const open: string[][] = [];
    await serveRules(server.answer, async (baseURL) => {
      const openai = client(baseURL);
      for (const ask of ["Hi.", "Look Ada up.", undefined]) {
        if (ask !== undefined) conv.user(ask);
        const answer = await openai.responses.create(await conv.request());
        const calls = conv.record(answer as unknown as Answer);
        open.push(calls.map((call) => call.name));
        for (const call of calls) conv.toolResult(call.id, "ok");
        // write_file goes, run_linter comes, in an additional_tools item.
        tools.splice(1, 1, { ...READ_FILE, name: "run_linter" });
      }
    });
    await inline.dispose();
    assert.deepEqual(server.rejections, []);
    assert.deepEqual(open, [[], ["crm_get_contact"], []]);
    assert.equal(server.bodies[0].tool_choice, undefined);
    for (const body of server.bodies.slice(1)) {
      assert.deepEqual(body.tool_choice, {
        type: "allowed_tools",
        mode: "auto",
        tools: [
          { type: "function", name: "read_file" },
          { type: "function", name: "run_linter" },
          { type: "tool_search" },
          ...(body.tools as {
            type: string;
            name: string;
            tools?: { name: string }[];
          }[])
            .flatMap((tool) =>
              tool.type === "namespace"
                ? tool.tools!.map((fn) => ({
                  type: "function",
                  name: fn.name,
                  namespace: tool.name,
                }))
                : []
            ),
        ],
      });
      // The tools block is the first request's.
      assert.equal(
        JSON.stringify(body.tools),
        JSON.stringify(server.bodies[0].tools),
      );
    }
  });

  it("a call naming a namespace that does not hold its tool is refused by the conversation", async () => {
    const conv = responsesConversation(prompt, { model: "gpt-loopback" });
    conv.user("Open a bug.");
    const first = await conv.request();
    const home = namespaceIn(
      first as unknown as Record<string, unknown>,
      FOUND[0].name,
    );
    const other = (first.tools as { type: string; name?: string }[])
      .find((tool) => tool.type === "namespace" && tool.name !== home)!.name!;
    const call = (id: string, namespace: string) => ({
      type: "function_call",
      id: `fc_${id}`,
      call_id: id,
      name: FOUND[0].name,
      namespace,
      arguments: "{}",
      status: "completed",
    });
    const calls = conv.record({
      id: "resp_0",
      object: "response",
      output: [call("right", home), call("wrong", other), call("none", "nope")],
      usage: null,
    } as unknown as Answer);
    assert.deepEqual(calls.map((one) => one.id), ["right"]);
    conv.toolResult("right", "ok");
    const next = JSON.stringify(await conv.request());
    for (const namespace of [other, "nope"]) {
      assert.ok(
        next.includes(
          `Tool \\"${
            FOUND[0].name
          }\\" is not in the namespace \\"${namespace}\\"`,
        ),
        next.slice(-800),
      );
    }
  });

  it("a resume mid-session sends the next body byte for byte (client search)", async () => {
    const server = responsesToolSearchServer(() => ({
      search: FOUND[2].query,
    }));
    const options = { model: "gpt-loopback", toolSearch: "client" as const };
    const conv = responsesConversation(prompt, options);
    conv.user("Find the repository search.");
    let next = "";
    let resumedNext = "";
    await serveRules(server.answer, async (baseURL) => {
      const openai = client(baseURL);
      const answer = await openai.responses.create(await conv.request());
      conv.record(answer as unknown as Answer);
      const resumed = resumeResponsesConversation(prompt, conv.save());
      next = JSON.stringify(await conv.request());
      resumedNext = JSON.stringify(await resumed.request());
    });
    assert.equal(resumedNext, next);
    assert.match(next, /"type":"tool_search_output"/);
    assert.match(next, /gh_search_repository/);
  });
});
