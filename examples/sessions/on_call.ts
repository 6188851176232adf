/**
 * Session (e): an on-call agent for a payments platform, with tool rounds.
 * Sixteen incidents of three steps each: the person's report (after a pause
 * of 5 to 20 minutes for most of them), a fan-out of 1 to 30 parallel tool
 * calls (the largest add more than 20 blocks to the conversation in one
 * step), and a short follow-up round whose answer goes back to the person
 * (`awaiting: "person"`). The status server's MCP connection drops before
 * step 18 (its tools disappear) and comes back before step 27, upgraded
 * with one more tool; the open incident is runtime context. 48 steps, one
 * thread.
 *
 * ```sh
 * deno run -A cli/main.ts simulate examples/sessions/on_call.ts
 * ```
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client";
import { InMemoryTransport as untypedTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer as untypedMcpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { InMemoryTransport as Transport } from "@modelcontextprotocol/sdk/inMemory";
import type { McpServer as McpServerClass } from "@modelcontextprotocol/sdk/server/mcp";
import { z } from "zod";
import { type Disposer, SystemPrompt } from "../../mod.ts";
import { mcpTools } from "../../adapters/mcp/mod.ts";
import type {
  CacheSession,
  SessionMessage,
  SessionRequest,
  SessionToolCall,
} from "../../adapters/cache/mod.ts";
import { date, tool } from "./_common.ts";
import {
  assistantTurn,
  instructions,
  pick,
  seeded,
  type Topic,
  userTurn,
} from "./_text.ts";

const InMemoryTransport = untypedTransport as typeof Transport;
const McpServer = untypedMcpServer as typeof McpServerClass;

/** Sections the author knows to change during the session (none here). */
export const volatileSections: readonly string[] = [];

/** The number of steps. */
export const STEPS = 48;

/** The steps before which the status server drops and comes back. */
export const MCP_DROP = 18;
/** See {@linkcode MCP_DROP}. */
export const MCP_BACK = 27;

const MINUTE = 60_000;
/** Incident → the person's pause before reporting it. */
const PAUSES = [0, 6, 1, 14, 9, 1, 18, 7, 1, 12, 20, 1, 5, 16, 1, 11].map(
  (minutes) => minutes * MINUTE,
);
/** Incident → how many calls its first round makes in parallel. */
const FAN_OUT = [3, 24, 2, 12, 1, 30, 4, 16, 2, 22, 5, 11, 3, 26, 2, 14];

const RUNBOOK = [
  "Acknowledge the page within two minutes and post the first status update within ten.",
  "Check the dashboards of every service on the request path before you restart anything.",
  "Prefer a rollback of the last deploy to a fix forward while customers are affected.",
  "Never restart the ledger service without a human's approval.",
  "Quote the exact log lines and metric values you base a conclusion on.",
  "Page the owning team when an incident lasts longer than thirty minutes.",
  "Write the timeline as you go: what you saw, when, and what you did.",
  "Close an incident only after the error rate has been normal for fifteen minutes.",
];

const ESCALATION = [
  "Severity 1: card payments fail for more than one percent of requests.",
  "Severity 2: a region or a payment method is degraded.",
  "Severity 3: internal tooling or reporting is delayed.",
  "The incident commander decides on customer communication.",
  "Security incidents go to the security rotation, never to a public channel.",
];

const SERVICES = [
  "api-gateway",
  "checkout",
  "card-auth",
  "ledger",
  "payouts",
  "fraud-score",
  "webhooks",
  "fx-rates",
  "notifications",
  "reporting",
  "kyc",
  "refunds",
];

const ON_CALL: Topic = {
  subjects: [
    "the card authorisation path",
    "the payout batch",
    "the webhook retries",
    "the fraud scoring latency",
    "the ledger write queue",
    "the FX rate refresh",
    "the checkout error rate",
    "the refund backlog",
  ],
  things: SERVICES.map((service) => `the ${service} service`),
  asks: [
    "Can you find out why",
    "Please check whether",
    "Look into the alert where",
    "Tell me how bad",
    "Find the cause of",
    "Confirm that we recovered from",
  ],
  findings: [
    "the p99 latency doubled right after the 14:05 deploy",
    "the connection pool is exhausted and requests queue for seconds",
    "one availability zone returns 503s while the others are healthy",
    "the error budget for the week is already half spent",
    "a certificate expires in two days and the renewal job failed",
    "the retry storm from webhooks saturates the database",
    "a feature flag was turned on for every merchant instead of one percent",
    "the queue depth grows by a thousand messages a minute",
  ],
};

const TOOLS = [
  tool("query_logs", "Search the logs of a service in a time window.", {
    service: "The service's name.",
    query: "A LogQL query.",
    since: "How far back, like 30m or 2h.",
  }),
  tool("get_metrics", "Read a metric of a service, as a time series.", {
    service: "The service's name.",
    metric: "The metric, like error_rate, p99_latency or queue_depth.",
    window: "The window, like 15m.",
  }),
  tool("list_alerts", "List the alerts firing now, with their severity.", {
    team: "Optional owning team.",
  }),
  tool("deploy_history", "The last deploys of a service.", {
    service: "The service's name.",
    limit: "How many deploys (default 5).",
  }),
  tool("rollback", "Roll a service back to its previous deploy.", {
    service: "The service's name.",
    reason: "Why, for the audit log.",
  }),
];

/** The status server's tools, as registered on it. */
function statusServer(upgraded: boolean): McpServerClass {
  const server = new McpServer({ name: "status", version: "2.0.0" });
  const text = (value: string) => ({
    content: [{ type: "text" as const, text: value }],
  });
  server.registerTool("incident_get", {
    description: "Fetch an incident with its timeline and responders.",
    inputSchema: { id: z.string().describe("The incident's id, like INC-42.") },
  }, ({ id }) => text(`incident ${id}`));
  server.registerTool("incident_update", {
    description: "Post a status update to an incident's public page.",
    inputSchema: {
      id: z.string().describe("The incident's id."),
      status: z.string().describe("investigating, identified or resolved."),
      message: z.string().describe("The update, in plain words."),
    },
  }, () => text("posted"));
  server.registerTool("incident_timeline", {
    description: "Append an entry to an incident's internal timeline.",
    inputSchema: {
      id: z.string().describe("The incident's id."),
      entry: z.string().describe("What happened, with its time."),
    },
  }, () => text("ok"));
  if (upgraded) {
    server.registerTool("incident_postmortem", {
      description: "Draft the postmortem document of a resolved incident.",
      inputSchema: {
        id: z.string().describe("The incident's id."),
        owner: z.string().describe("Who owns the follow-up actions."),
      },
    }, () => text("drafted"));
  }
  return server;
}

/** The session: a fresh registry, status server and conversation. */
export default async function session(): Promise<CacheSession> {
  const random = seeded(55);
  const prompt = new SystemPrompt({
    persona: "You are Pager, the on-call agent of a payments platform.",
  });
  prompt.section({
    name: "runbook",
    order: 10,
    text: instructions(random, "Runbook", RUNBOOK, 1200),
  });
  prompt.section({
    name: "escalation",
    order: 20,
    text: instructions(random, "Escalation", ESCALATION, 500),
  });
  prompt.tools(() => ({ schemas: TOOLS }));
  let incident = 0;
  prompt.runtimeContext({
    name: "date",
    order: 0,
    text: () => `Today is ${date(3)}.`,
  });
  prompt.runtimeContext({
    name: "incident",
    order: 10,
    text: () =>
      `Open incident: INC-${400 + incident}, severity ${1 + incident % 3}.`,
  });

  // The status server, over a connection that can drop.
  let connection:
    | { client: Client; server: McpServerClass; registration: Disposer }
    | undefined;
  const connect = async (upgraded: boolean) => {
    const server = statusServer(upgraded);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "pager", version: "1.0.0" });
    await client.connect(clientSide);
    const source = mcpTools(client, { prefix: "status_" });
    const registration = prompt.tools(source.tools$);
    await source.ready;
    connection = { client, server, registration };
  };
  const disconnect = async () => {
    if (connection === undefined) return;
    const { client, server, registration } = connection;
    connection = undefined;
    await registration();
    await client.close();
    await server.close();
  };
  await connect(false);

  const messages: SessionMessage[] = [];
  let answer: SessionMessage | undefined;
  let calls = 0;
  let time = 0;
  /** A tool round: the model's calls and the harness's results. */
  const round = (count: number): SessionMessage[] => {
    const names = [
      ...TOOLS.slice(0, 4).map((schema) => schema.name),
      ...(connection === undefined ? [] : ["status_incident_get"]),
    ];
    const toolCalls: SessionToolCall[] = Array.from(
      { length: count },
      (_, at) => {
        const service = SERVICES[(at + incident) % SERVICES.length];
        const name = count > 4 ? "get_metrics" : pick(random, names);
        return {
          id: `call_${++calls}`,
          name,
          input: name === "status_incident_get"
            ? { id: `INC-${400 + incident}` }
            : { service, metric: pick(random, METRICS), window: "30m" },
        };
      },
    );
    return [
      {
        role: "assistant",
        content: `I will check ${
          count === 1 ? "one source" : `${count} sources in parallel`
        }: ${pick(random, ON_CALL.subjects)} looks related.`,
        toolCalls,
      },
      {
        role: "user",
        content: "",
        toolResults: toolCalls.map((call) => ({
          id: call.id,
          content: resultText(random, call),
        })),
      },
    ];
  };

  const steps = Array.from({ length: STEPS }, (_, index) => async () => {
    const episode = Math.floor(index / 3);
    const phase = index % 3;
    if (index === MCP_DROP) await disconnect();
    if (index === MCP_BACK) await connect(true);
    let request: SessionRequest;
    if (phase === 0) {
      incident = episode;
      time += index === 0 ? 0 : PAUSES[episode] + 30_000;
      if (answer !== undefined) messages.push(answer);
      messages.push({ role: "user", content: userTurn(random, ON_CALL) });
      request = { messages: [...messages], time, awaiting: "agent" };
    } else {
      time += 20_000;
      messages.push(...round(phase === 1 ? FAN_OUT[episode] : 1));
      // The answer to the follow-up round goes to the person.
      request = {
        messages: [...messages],
        time,
        awaiting: phase === 2 ? "person" : "agent",
      };
      if (phase === 2) {
        answer = {
          role: "assistant",
          content: assistantTurn(random, ON_CALL),
        };
      }
    }
    return request;
  });
  return { prompt, steps, dispose: disconnect };
}

const METRICS = ["error_rate", "p99_latency", "queue_depth", "saturation"];

/** A tool's result: a few lines of logs or a short time series. */
function resultText(random: () => number, call: SessionToolCall): string {
  const lines = [`${call.name} ${JSON.stringify(call.input)}:`];
  const rows = 4 + Math.floor(random() * 5);
  for (let row = 0; row < rows; row++) {
    const minute = String(10 + row * 3).padStart(2, "0");
    lines.push(
      `14:${minute} ${pick(random, SERVICES)} ${(random() * 100).toFixed(2)} ${
        pick(random, ON_CALL.findings)
      }`,
    );
  }
  return lines.join("\n");
}
