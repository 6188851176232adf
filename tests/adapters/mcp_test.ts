/**
 * `mcpTools` (SPEC 7.8) against the real `@modelcontextprotocol/sdk`: its
 * `McpServer` / `Server` and `Client` over the in-memory transport.
 */
import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
import { Server } from "@modelcontextprotocol/sdk/server";
// The SDK's "./*" exports type "x.js" as "x.js.d.ts", which does not
// exist: values come from the ".js" paths (as on Node), types from the
// extensionless ones.
import { InMemoryTransport as untypedTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer as untypedMcpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as untypedTypes from "@modelcontextprotocol/sdk/types.js";
import type { InMemoryTransport as Transport } from "@modelcontextprotocol/sdk/inMemory";
import type { McpServer as McpServerClass } from "@modelcontextprotocol/sdk/server/mcp";
import type * as Types from "@modelcontextprotocol/sdk/types";
import { z } from "zod";
import { firstValueFrom, type Subscription } from "rxjs";
import { type PromptView, SystemPrompt } from "../../mod.ts";
import { mcpTools } from "../../adapters/mcp/mod.ts";
import { wireNames } from "../../adapters/mcp/names.ts";
import { rejects } from "../assertions.ts";

const InMemoryTransport = untypedTransport as typeof Transport;
const McpServer = untypedMcpServer as typeof McpServerClass;
type McpServer = McpServerClass;
const { ListToolsRequestSchema, ToolListChangedNotificationSchema } =
  untypedTypes as typeof Types;

const cleanups: (() => unknown)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Connection {
  client: Client;
  /** The methods of the requests the client sent, in order. */
  sent: string[];
}

/** Connects a client to `server` over a linked in-memory pair. */
async function connect(server: McpServer | Server): Promise<Connection> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const sent: string[] = [];
  const send = clientSide.send.bind(clientSide);
  clientSide.send = (message, options) => {
    if ("method" in message && "id" in message) sent.push(message.method);
    return send(message, options);
  };
  await server.connect(serverSide);
  const client = new Client({ name: "agent", version: "1.0.0" });
  await client.connect(clientSide);
  cleanups.push(() => client.close(), () => server.close());
  return { client, sent };
}

function registry(): SystemPrompt {
  const prompt = new SystemPrompt({ includeHarnessIdentity: false });
  cleanups.push(() => prompt.dispose());
  return prompt;
}

/** Waits (a few macrotasks at a time) until `check` holds. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 50));
}

interface Page {
  tools: { name: string; description?: string }[];
  nextCursor?: string;
}

/**
 * A low-level server whose `tools/list` answers come from `pages` (by
 * cursor; `""` is the first page), or throw `failure` when it is set.
 */
function pagedServer(
  state: { pages: Record<string, Page>; failure?: Error; delayMs?: number },
) {
  const server = new Server(
    { name: "paged", version: "1.0.0" },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    if (state.delayMs !== undefined) {
      await new Promise((resolve) => setTimeout(resolve, state.delayMs));
    }
    if (state.failure !== undefined) throw state.failure;
    const page = state.pages[request.params?.cursor ?? ""];
    return {
      tools: page.tools.map((tool) => ({
        ...tool,
        inputSchema: { type: "object" as const },
      })),
      ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
    };
  });
  return server;
}

function echoServer(): McpServer {
  const server = new McpServer({ name: "echo", version: "1.0.0" });
  server.registerTool("echo", {
    description: "Echo the text.",
    inputSchema: { text: z.string() },
  }, ({ text }) => ({ content: [{ type: "text", text: `echo: ${text}` }] }));
  server.registerTool("math.add", {
    description: "Add two numbers.",
    inputSchema: { a: z.number(), b: z.number() },
  }, ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }));
  return server;
}

describe("mcpTools with the real SDK", () => {
  it("lists two tools, shows a third one added later in the next watch() view, and routes a call", async () => {
    const server = echoServer();
    const { client } = await connect(server);
    const prompt = registry();
    const source = mcpTools(client, { prefix: "srv_" });
    prompt.tools(source.tools$);
    await source.ready;
    const assembly = await prompt.assemble();
    assert.deepEqual(assembly.tools.map((tool) => tool.name), [
      "srv_echo",
      "srv_math_add",
    ]);
    const echo = assembly.tools[0];
    assert.equal(echo.description, "Echo the text.");
    assert.deepEqual(
      (echo.parameters as { properties: unknown }).properties,
      { text: { type: "string" } },
    );

    const views: PromptView[] = [];
    const subscription: Subscription = prompt.watch().subscribe((view) =>
      views.push(view)
    );
    cleanups.push(() => subscription.unsubscribe());
    await until(() => views.length === 1, "the first view");
    server.registerTool("clock", { description: "The time." }, () => ({
      content: [{ type: "text", text: "12:00" }],
    }));
    await until(() => views.length === 2, "a view after list_changed");
    const latest = views[1];
    assert.ok("assembly" in latest);
    assert.deepEqual(latest.assembly.tools.map((tool) => tool.name), [
      "srv_clock",
      "srv_echo",
      "srv_math_add",
    ]);

    assert.ok(source.owns("srv_math_add"));
    assert.ok(!source.owns("math.add"));
    assert.deepEqual(await source.call("srv_math_add", { a: 2, b: 3 }), {
      content: [{ type: "text", text: "5" }],
    });
    assert.deepEqual(await source.call("srv_echo", { text: "hi" }), {
      content: [{ type: "text", text: "echo: hi" }],
    });
    await assert.rejects(
      source.call("echo", { text: "hi" }),
      rejects("UNKNOWN_TOOL", '"echo"', "srv_clock, srv_echo, srv_math_add"),
    );
  });

  it("disposing the registration stops listening: no tools/list follows a later list_changed", async () => {
    const server = echoServer();
    const { client, sent } = await connect(server);
    const prompt = registry();
    const source = mcpTools(client);
    const registration = prompt.tools(source.tools$);
    await source.ready;
    server.registerTool("one", {}, () => ({ content: [] }));
    await until(
      () => sent.filter((method) => method === "tools/list").length === 2,
      "the re-listing",
    );
    await registration();
    server.registerTool("two", {}, () => ({ content: [] }));
    await settle();
    assert.equal(sent.filter((method) => method === "tools/list").length, 2);
  });

  it("lists every page", async () => {
    const state = {
      pages: {
        "": { tools: [{ name: "a" }], nextCursor: "p2" },
        p2: { tools: [{ name: "b" }], nextCursor: "p3" },
        p3: { tools: [{ name: "c", description: "C." }] },
      },
    };
    const { client } = await connect(pagedServer(state));
    const result = await firstValueFrom(mcpTools(client).tools$);
    assert.deepEqual(result.schemas.map((schema) => schema.name), [
      "a",
      "b",
      "c",
    ]);
    assert.deepEqual(result.schemas.map((schema) => schema.description), [
      "",
      "",
      "C.",
    ]);
  });

  it("fails a listing whose cursor repeats instead of looping", async () => {
    const state = {
      pages: {
        "": { tools: [{ name: "a" }], nextCursor: "again" },
        again: {
          tools: [{ name: "b" }],
          nextCursor: "again",
        },
      },
    };
    const { client } = await connect(pagedServer(state));
    await assert.rejects(
      firstValueFrom(mcpTools(client).tools$),
      rejects("PROVIDER_FAILED", '"again"'),
    );
  });

  it("a first listing failure errors tools$ and ready; assemblies reading it reject", async () => {
    const state = { pages: {}, failure: new Error("no tools today") };
    const { client } = await connect(pagedServer(state));
    const prompt = registry();
    const source = mcpTools(client);
    prompt.tools(source.tools$);
    await assert.rejects(source.ready, /no tools today/);
    await assert.rejects(
      prompt.assemble(),
      rejects("PROVIDER_FAILED", "tool source", "no tools today"),
    );
  });

  it("a later listing failure keeps the last good list and reports on errors$", async () => {
    const state: { pages: Record<string, Page>; failure?: Error } = {
      pages: { "": { tools: [{ name: "a" }] } },
    };
    const server = pagedServer(state);
    const { client } = await connect(server);
    const prompt = registry();
    const source = mcpTools(client);
    const errors: unknown[] = [];
    const subscription = source.errors$.subscribe((error) =>
      errors.push(error)
    );
    cleanups.push(() => subscription.unsubscribe());
    prompt.tools(source.tools$);
    await source.ready;
    state.failure = new Error("flaky");
    await server.sendToolListChanged();
    await until(() => errors.length === 1, "the reported failure");
    assert.match(String(errors[0]), /flaky/);
    assert.deepEqual((await prompt.assemble()).tools.map((t) => t.name), [
      "a",
    ]);
    assert.ok(source.owns("a"));
    state.failure = undefined;
    state.pages[""] = { tools: [{ name: "b" }] };
    await server.sendToolListChanged();
    await until(() => !source.owns("a"), "the next good listing");
    assert.deepEqual((await prompt.assemble()).tools.map((t) => t.name), [
      "b",
    ]);
  });

  it("coexists with the application's handlers and a second mcpTools on the same client", async () => {
    const state: { pages: Record<string, Page> } = {
      pages: { "": { tools: [{ name: "a" }] } },
    };
    const server = pagedServer(state);
    const { client, sent } = await connect(server);
    const heard: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      heard.push("before");
    });
    const prompt = registry();
    const first = mcpTools(client, { prefix: "x_" });
    const second = mcpTools(client, { prefix: "y_" });
    const one = prompt.tools(first.tools$);
    const two = prompt.tools(second.tools$);
    await Promise.all([first.ready, second.ready]);

    state.pages[""] = { tools: [{ name: "b" }] };
    await server.sendToolListChanged();
    await until(
      () => first.owns("x_b") && second.owns("y_b") && heard.length === 1,
      "both sources and the application's handler",
    );
    // The application replaces its handler while the sources listen.
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      heard.push("after");
    });
    state.pages[""] = { tools: [{ name: "c" }] };
    await server.sendToolListChanged();
    await until(
      () => first.owns("x_c") && second.owns("y_c") && heard.length === 2,
      "the replaced handler",
    );
    assert.deepEqual(heard, ["before", "after"]);
    assert.deepEqual((await prompt.assemble()).tools.map((t) => t.name), [
      "x_c",
      "y_c",
    ]);

    // One source leaves; the other still hears.
    await one();
    state.pages[""] = { tools: [{ name: "d" }] };
    await server.sendToolListChanged();
    await until(() => second.owns("y_d"), "the remaining source");
    assert.ok(first.owns("x_c"));
    await two();

    // Both gone: the application's handler is back on its own.
    const lists = sent.filter((method) => method === "tools/list").length;
    await server.sendToolListChanged();
    await until(() => heard.length === 4, "the application's own handler");
    await settle();
    assert.equal(
      sent.filter((method) => method === "tools/list").length,
      lists,
    );
    assert.deepEqual(heard, ["before", "after", "after", "after"]);
    client.removeNotificationHandler("notifications/tools/list_changed");
    await server.sendToolListChanged();
    await settle();
    assert.equal(heard.length, 4);
  });

  it("rejects a client without listTools/callTool and a prefix outside the wire rules", () => {
    const noop = () => Promise.resolve();
    for (const half of [{}, { listTools: noop }, { callTool: noop }]) {
      assert.throws(
        () => mcpTools(half as unknown as Client),
        rejects("INVALID_CONFIG", "listTools and callTool"),
        Object.keys(half).join(),
      );
    }
    const client = new Client({ name: "agent", version: "1.0.0" });
    assert.throws(
      () => mcpTools(client, { prefix: "has space" }),
      rejects("INVALID_CONFIG", '"has space"'),
    );
    assert.throws(
      () => mcpTools(client, { prefix: "p".repeat(33) }),
      rejects("INVALID_CONFIG"),
    );
  });
});

/** `promise`'s outcome, or "pending" when it has not settled within `ms`. */
async function outcome(
  promise: Promise<unknown>,
  ms = 200,
): Promise<"resolved" | "pending" | { rejected: unknown }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const pending = new Promise<"pending">((resolve) => {
    timer = setTimeout(() => resolve("pending"), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        () => "resolved" as const,
        (error: unknown) => ({ rejected: error }),
      ),
      pending,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function listings(sent: string[]): number {
  return sent.filter((method) => method === "tools/list").length;
}

describe("mcpTools: ready and call without a listing (issue 21, defect 8)", () => {
  it("ready without any subscription rejects at once, saying what to do; nothing is sent", async () => {
    const { client, sent } = await connect(echoServer());
    const source = mcpTools(client);
    const result = await outcome(source.ready);
    assert.notEqual(result, "pending", "ready never settled");
    assert.ok(typeof result === "object");
    rejects("PROVIDER_FAILED", "register source.tools$", "await source.ready")(
      result.rejected,
    );
    assert.equal(listings(sent), 0);
  });

  it("call() before any listing rejects with UNKNOWN_TOOL saying the same", async () => {
    const { client } = await connect(echoServer());
    const source = mcpTools(client);
    await assert.rejects(
      source.call("echo", { text: "hi" }),
      rejects("UNKNOWN_TOOL", '"echo"', "register source.tools$"),
    );
  });

  it("ready follows the current subscription: a failed first listing, then a good one", async () => {
    const state: { pages: Record<string, Page>; failure?: Error } = {
      pages: { "": { tools: [{ name: "a" }] } },
      failure: new Error("not yet"),
    };
    const { client } = await connect(pagedServer(state));
    const source = mcpTools(client);
    const first = registry();
    first.tools(source.tools$);
    await assert.rejects(source.ready, /not yet/);
    state.failure = undefined;
    const second = registry();
    second.tools(source.tools$);
    assert.equal(await outcome(source.ready, 2_000), "resolved");
    assert.ok(source.owns("a"));
  });

  it("ready rejects when the subscription ends before its first listing", async () => {
    const state = { pages: { "": { tools: [{ name: "a" }] } }, delayMs: 100 };
    const { client } = await connect(pagedServer(state));
    const source = mcpTools(client);
    const prompt = registry();
    const registration = prompt.tools(source.tools$);
    const ready = source.ready;
    await registration();
    const result = await outcome(ready);
    assert.ok(typeof result === "object", `ready is ${String(result)}`);
    rejects("PROVIDER_FAILED", "ended before")(result.rejected);
  });

  it("types call() with CallToolResult and offers an execute map for toAISDK", async () => {
    const { client } = await connect(echoServer());
    const prompt = registry();
    const source = mcpTools(client, { prefix: "srv_" });
    prompt.tools(source.tools$);
    await source.ready;
    const execute = source.execute;
    assert.deepEqual(Object.keys(execute).sort(), ["srv_echo", "srv_math_add"]);
    const result = await execute.srv_echo({ text: "hi" });
    // Typed: content is CallToolResult's, no cast.
    const [first] = result.content;
    assert.equal(first.type === "text" ? first.text : "", "echo: hi");
    const { toAISDK } = await import("../../adapters/ai_sdk/mod.ts");
    const { tools } = toAISDK(await prompt.assemble(), { execute });
    assert.equal(typeof tools.srv_math_add.execute, "function");
  });
});

describe("mcpTools and SystemPrompt.ready()", () => {
  it("await prompt.ready() waits for the first listing: the first step has the tools", async () => {
    const { client } = await connect(echoServer());
    const prompt = registry();
    prompt.tools(mcpTools(client, { prefix: "srv_" }).tools$);
    await prompt.ready();
    assert.deepEqual((await prompt.assemble()).tools.map((tool) => tool.name), [
      "srv_echo",
      "srv_math_add",
    ]);
  });
});

describe("mcpTools on a list_changed flood", () => {
  it("a burst of 1,000 notifications sends at most two more tools/list requests", async () => {
    const state = { pages: { "": { tools: [{ name: "a" }] } } };
    const server = pagedServer(state);
    const { client, sent } = await connect(server);
    const prompt = registry();
    const source = mcpTools(client);
    prompt.tools(source.tools$);
    await source.ready;
    assert.equal(listings(sent), 1);
    state.pages[""] = { tools: [{ name: "b" }] };
    await Promise.all(
      Array.from({ length: 1_000 }, () => server.sendToolListChanged()),
    );
    await until(() => source.owns("b"), "the listing after the burst");
    await settle();
    assert.ok(listings(sent) <= 3, `${listings(sent)} tools/list requests`);
    assert.ok(source.owns("b"), "the latest list wins");
  });

  it("with a notification every 2 ms, the list still follows the server", async () => {
    // Each listing takes 10 ms: a listing cancelled by every notification
    // would never finish while the flood lasts.
    const state = { pages: { "": { tools: [{ name: "a" }] } }, delayMs: 10 };
    const server = pagedServer(state);
    const { client, sent } = await connect(server);
    const prompt = registry();
    const source = mcpTools(client);
    prompt.tools(source.tools$);
    await source.ready;
    const timer = setInterval(() => void server.sendToolListChanged(), 2);
    try {
      await settle();
      state.pages[""] = { tools: [{ name: "b" }] };
      const changed = Date.now();
      await until(() => source.owns("b"), "a fresh list during the flood");
      const took = Date.now() - changed;
      assert.ok(took < 200, `the fresh list took ${took} ms`);
      assert.deepEqual(
        (await prompt.assemble()).tools.map((tool) => tool.name),
        ["b"],
      );
      const before = listings(sent);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const during = listings(sent) - before;
      // One listing at a time, each at least 10 ms: at most about 30.
      assert.ok(during <= 40, `${during} tools/list requests in 300 ms`);
    } finally {
      clearInterval(timer);
    }
    await settle();
  });

  it("a list_changed during a listing is followed by one more listing", async () => {
    const state = { pages: { "": { tools: [{ name: "a" }] } }, delayMs: 200 };
    const server = pagedServer(state);
    const { client, sent } = await connect(server);
    const prompt = registry();
    const source = mcpTools(client);
    prompt.tools(source.tools$);
    await source.ready;
    await server.sendToolListChanged();
    await until(() => listings(sent) === 2, "the second listing");
    // The second listing waits 200 ms: this notification comes during it.
    await server.sendToolListChanged();
    state.pages[""] = { tools: [{ name: "b" }] };
    await until(() => listings(sent) === 3, "a listing after the second");
    await until(() => source.owns("b"), "the latest list");
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(listings(sent), 3);
  });

  it("ending the subscription aborts the listing in flight", async () => {
    const signals: AbortSignal[] = [];
    const client = {
      _notificationHandlers: new Map(),
      listTools: (_params: unknown, options: { signal: AbortSignal }) => {
        signals.push(options.signal);
        return new Promise(() => {});
      },
      callTool: () => Promise.resolve({ content: [] }),
    };
    const source = mcpTools(client as unknown as Client);
    const subscription = source.tools$.subscribe({ error: () => {} });
    await settle();
    assert.equal(signals.length, 1);
    assert.equal(signals[0].aborted, false);
    subscription.unsubscribe();
    assert.equal(signals[0].aborted, true);
  });
});

describe("MCP tool names on the wire", () => {
  const WIRE = /^[a-zA-Z0-9_-]{1,64}$/;

  it("replaces every character outside [a-zA-Z0-9_-] with _ and keeps valid names", () => {
    assert.deepEqual(
      wireNames(["read-file", "fs/read file", "naïve", "😀x", ""], "p_"),
      ["p_read-file", "p_fs_read_file", "p_na_ve", "p__x", "p_"],
    );
    assert.deepEqual(wireNames([""], ""), ["_"]);
  });

  it("gives a collision a numeric suffix; a name that needs no change keeps it", () => {
    // Changed names take suffixes in code-unit order ("a b" < "a.b").
    assert.deepEqual(wireNames(["a.b", "a_b", "a b"], ""), [
      "a_b_3",
      "a_b",
      "a_b_2",
    ]);
    // The same mapping whatever the listing order.
    assert.deepEqual(wireNames(["a b", "a.b", "a_b"], ""), [
      "a_b_2",
      "a_b_3",
      "a_b",
    ]);
    // A suffix never takes a name a later tool needs as it is.
    assert.deepEqual(wireNames(["a.b", "a_b", "a_b_2"], ""), [
      "a_b_3",
      "a_b",
      "a_b_2",
    ]);
  });

  it("cuts names to 64 code units, the suffix included", () => {
    const long = "x".repeat(100);
    const names = wireNames([long, long + ".", `${long}!`], "pre_");
    for (const name of names) assert.match(name, WIRE);
    assert.equal(new Set(names).size, 3);
    assert.equal(names[0], ("pre_" + long).slice(0, 64));
  });
});
