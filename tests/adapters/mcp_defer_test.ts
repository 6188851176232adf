/**
 * `mcpTools(client, { defer })` (SPEC §10.3) against the real
 * `@modelcontextprotocol/sdk` over the in-memory transport: the server's
 * tools deferred whole, or above a count, and called as any other.
 */
import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
import { InMemoryTransport as untypedTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer as untypedMcpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { InMemoryTransport as Transport } from "@modelcontextprotocol/sdk/inMemory";
import type { McpServer as McpServerClass } from "@modelcontextprotocol/sdk/server/mcp";
import { z } from "zod";
import { SystemPrompt } from "../../mod.ts";
import { mcpTools } from "../../adapters/mcp/mod.ts";
import { rejects } from "../assertions.ts";

const InMemoryTransport = untypedTransport as typeof Transport;
const McpServer = untypedMcpServer as typeof McpServerClass;

const cleanups: (() => unknown)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A connected client of a server with `count` tools `t0`, `t1`, … */
async function serverWith(
  count: number,
): Promise<{ client: Client; server: McpServerClass }> {
  const server = new McpServer({ name: "crm", version: "1.0.0" });
  for (let index = 0; index < count; index++) {
    server.registerTool(`t${index}`, {
      description: `Tool number ${index}.`,
      inputSchema: { n: z.number() },
    }, ({ n }) => ({ content: [{ type: "text", text: `t${index}:${n}` }] }));
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "agent", version: "1.0.0" });
  await client.connect(clientSide);
  cleanups.push(() => client.close(), () => server.close());
  return { client, server };
}

function registry(): SystemPrompt {
  const prompt = new SystemPrompt({ includeHarnessIdentity: false });
  cleanups.push(() => prompt.dispose());
  return prompt;
}

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error("timed out");
}

describe("mcpTools with defer", () => {
  it("defer: true puts every tool in deferredTools under the registrar's label; call routes them", async () => {
    const { client } = await serverWith(3);
    const prompt = registry();
    const crm = mcpTools(client, { prefix: "crm_", defer: true });
    prompt.fork({ label: "crm" }).tools(crm.tools$);
    await crm.ready;
    const assembly = await prompt.assemble();
    assert.deepEqual(assembly.tools, []);
    assert.deepEqual(assembly.deferredTools?.map((tool) => tool.name), [
      "crm_t0",
      "crm_t1",
      "crm_t2",
    ]);
    assert.equal(assembly.deferredSources?.crm_t2, "registry/crm");
    assert.ok(crm.owns("crm_t1"));
    assert.deepEqual(await crm.call("crm_t1", { n: 7 }), {
      content: [{ type: "text", text: "t1:7" }],
    });
  });

  it("{ above: n } defers the tools once the server lists more than n", async () => {
    const { client, server } = await serverWith(2);
    const prompt = registry();
    const crm = mcpTools(client, { defer: { above: 2 } });
    prompt.tools(crm.tools$);
    await crm.ready;
    const first = await prompt.assemble();
    assert.deepEqual(first.tools.map((tool) => tool.name), ["t0", "t1"]);
    assert.equal(first.deferredTools, undefined);
    server.registerTool("t2", { description: "One more." }, () => ({
      content: [],
    }));
    await until(async () =>
      (await prompt.assemble()).deferredTools?.length === 3
    );
    assert.deepEqual((await prompt.assemble()).tools, []);
  });

  it("the registration's defer wins over mcpTools' own", async () => {
    const { client } = await serverWith(2);
    const prompt = registry();
    const crm = mcpTools(client, { defer: true });
    prompt.tools(crm.tools$, { defer: false });
    await crm.ready;
    const assembly = await prompt.assemble();
    assert.deepEqual(assembly.tools.map((tool) => tool.name), ["t0", "t1"]);
    assert.equal(assembly.deferredTools, undefined);
  });

  it("a bad defer is INVALID_CONFIG at once", async () => {
    const { client } = await serverWith(1);
    for (const defer of ["all", { above: -2 }, 3]) {
      assert.throws(
        () => mcpTools(client, { defer: defer as never }),
        rejects("INVALID_CONFIG", "defer option of mcpTools", "above"),
      );
    }
  });
});
