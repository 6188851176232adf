/**
 * The deferred-tools session's tool set (SPEC §10.3): three real
 * `@modelcontextprotocol/sdk` servers over the in-memory transport, 300
 * tools in all (a code host with 120, a CRM with 100, an operations
 * monitor with 80), each with a realistic name, description and JSON
 * Schema made from the server's resources and verbs, and a handler that
 * answers with what it was called with. `FOUND` are the 8 tools a session
 * finds and uses, each with a query that finds it.
 */

import { Client } from "@modelcontextprotocol/sdk/client";
// The SDK's "./*" exports type "x.js" as "x.js.d.ts", which does not
// exist: values come from the ".js" paths (as on Node), types from the
// extensionless ones.
import { InMemoryTransport as untypedTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer as untypedMcpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { InMemoryTransport as Transport } from "@modelcontextprotocol/sdk/inMemory";
import type { McpServer as McpServerClass } from "@modelcontextprotocol/sdk/server/mcp";
import { z } from "zod";

const InMemoryTransport = untypedTransport as typeof Transport;
const McpServer = untypedMcpServer as typeof McpServerClass;

/** One resource of a server: its name, plural, and what it is. */
interface Resource {
  readonly name: string;
  readonly plural: string;
  readonly what: string;
  /** The fields a create or an update takes, with what each holds. */
  readonly fields: Readonly<Record<string, string>>;
}

/** A server of the fixture: its name, its tools' prefix, its resources and verbs. */
export interface ServerPlan {
  readonly name: string;
  /** The `mcpTools` prefix that keeps its tools apart. */
  readonly prefix: string;
  /** Where its resources live, for descriptions ("the code host"). */
  readonly home: string;
  readonly verbs: readonly Verb[];
  readonly resources: readonly Resource[];
}

type Verb =
  | "list"
  | "get"
  | "create"
  | "update"
  | "delete"
  | "search"
  | "acknowledge";

function resource(
  name: string,
  what: string,
  fields: Record<string, string>,
  plural = `${name}s`,
): Resource {
  return { name, plural, what, fields };
}

/** The three servers: 20 × 6 + 20 × 5 + 16 × 5 = 300 tools. */
export const SERVERS: readonly ServerPlan[] = [
  {
    name: "codehost",
    prefix: "gh_",
    home: "the code host",
    verbs: ["list", "get", "create", "update", "delete", "search"],
    resources: [
      resource("repository", "a Git repository with its settings", {
        name: "the repository's name",
        visibility: "public or private",
      }, "repositories"),
      resource("issue", "a tracked bug or feature request", {
        title: "a one-line summary",
        body: "the issue's text in Markdown",
      }),
      resource("pull_request", "a proposed change from a branch", {
        head: "the branch with the change",
        base: "the branch to merge into",
      }),
      resource("branch", "a named line of commits", {
        name: "the branch name",
        from: "the commit or branch it starts at",
      }, "branches"),
      resource("commit", "a recorded snapshot of the files", {
        message: "the commit message",
        tree: "the tree's SHA",
      }),
      resource("release", "a tagged, published version", {
        tag: "the tag to publish",
        notes: "the release notes",
      }),
      resource("workflow", "a continuous-integration pipeline", {
        file: "the workflow file's path",
        ref: "the branch or tag to run on",
      }),
      resource("label", "a tag that groups issues", {
        name: "the label's text",
        color: "six hex digits",
      }),
      resource("milestone", "a target date that groups issues", {
        title: "the milestone's name",
        due: "the due date, ISO 8601",
      }),
      resource("comment", "a remark on an issue or a pull request", {
        body: "the comment's text",
      }),
      resource("review", "an approval or a change request on a pull request", {
        event: "APPROVE, REQUEST_CHANGES or COMMENT",
        body: "the review's text",
      }),
      resource("tag", "a name for a commit", {
        name: "the tag",
        sha: "the commit it names",
      }),
      resource("webhook", "a URL called on repository events", {
        url: "where events are posted",
        events: "which events, comma-separated",
      }),
      resource("deploy_key", "an SSH key with access to one repository", {
        title: "what the key is for",
        key: "the public key",
      }),
      resource("collaborator", "a person with access to a repository", {
        login: "the person's login",
        permission: "read, write or admin",
      }),
      resource("gist", "a shared snippet of code", {
        filename: "the file's name",
        content: "the snippet",
      }),
      resource("project", "a planning board of cards", {
        name: "the board's name",
        body: "what the board tracks",
      }),
      resource("check_run", "one check's result on a commit", {
        name: "the check's name",
        conclusion: "success, failure or neutral",
      }),
      resource("secret", "an encrypted value for workflows", {
        name: "the secret's name",
        value: "the value to encrypt",
      }),
      resource("environment", "a deployment target with protection rules", {
        name: "the environment's name",
        reviewers: "who must approve deployments",
      }),
    ],
  },
  {
    name: "crm",
    prefix: "crm_",
    home: "the CRM",
    verbs: ["list", "get", "create", "update", "delete"],
    resources: [
      resource("contact", "a person the company deals with", {
        name: "the person's full name",
        email: "their email address",
      }),
      resource("company", "an organization with its contacts", {
        name: "the company's name",
        domain: "its web domain",
      }, "companies"),
      resource("deal", "a sales opportunity with a value", {
        title: "what is being sold",
        amount: "the expected value in cents",
      }),
      resource("lead", "a prospect not yet qualified", {
        name: "the prospect's name",
        source: "where the lead came from",
      }),
      resource("note", "a free-text note on a record", {
        body: "the note's text",
        record: "the record it belongs to",
      }),
      resource("task", "a to-do with a due date", {
        title: "what to do",
        due: "when, ISO 8601",
      }),
      resource("call", "a logged phone call", {
        contact: "who was called",
        summary: "what was said",
      }),
      resource("meeting", "a scheduled meeting with contacts", {
        title: "the meeting's subject",
        start: "when it starts, ISO 8601",
      }),
      resource("email", "a logged email message", {
        subject: "the subject line",
        to: "the recipient's address",
      }),
      resource("pipeline", "a sequence of sales stages", {
        name: "the pipeline's name",
      }),
      resource("stage", "a step of a sales pipeline", {
        name: "the stage's name",
        probability: "the chance of winning, 0 to 100",
      }),
      resource("product", "an item in the price book", {
        name: "the product's name",
        price: "the unit price in cents",
      }),
      resource("quote", "a priced offer sent to a customer", {
        deal: "the deal it prices",
        expires: "the expiry date",
      }),
      resource("invoice", "a bill sent to a customer", {
        company: "who pays",
        total: "the total in cents",
      }),
      resource("ticket", "a customer support request", {
        subject: "the problem in one line",
        priority: "low, normal or urgent",
      }),
      resource("campaign", "a marketing campaign", {
        name: "the campaign's name",
        channel: "email, ads or events",
      }),
      resource("segment", "a saved filter of contacts", {
        name: "the segment's name",
        filter: "the filter expression",
      }),
      resource("owner", "a sales representative who owns records", {
        email: "the owner's login email",
      }),
      resource("activity", "an event on a record's timeline", {
        kind: "call, email, meeting or note",
        record: "the record it happened on",
      }, "activities"),
      resource("attachment", "a file attached to a record", {
        filename: "the file's name",
        record: "the record it belongs to",
      }),
    ],
  },
  {
    name: "ops",
    prefix: "ops_",
    home: "the operations monitor",
    verbs: ["list", "get", "create", "update", "acknowledge"],
    resources: [
      resource("alert", "a firing condition on a metric", {
        severity: "info, warning or critical",
        message: "what went wrong",
      }),
      resource("incident", "an outage being handled", {
        title: "the incident's summary",
        commander: "who leads the response",
      }),
      resource("dashboard", "a board of charts", {
        title: "the dashboard's name",
        layout: "the charts' arrangement",
      }),
      resource("metric", "a time series of measurements", {
        name: "the metric's name",
        unit: "what it is measured in",
      }),
      resource("log_stream", "a source of log lines", {
        name: "the stream's name",
        retention: "how many days lines are kept",
      }),
      resource("trace", "a request's path through services", {
        service: "the entry service",
        duration: "the total time in milliseconds",
      }),
      resource("monitor", "a periodic check of an endpoint", {
        url: "what is checked",
        interval: "how often, in seconds",
      }),
      resource("service", "a deployed component of the system", {
        name: "the service's name",
        team: "who owns it",
      }),
      resource("oncall_schedule", "who answers pages and when", {
        team: "the team it covers",
        rotation: "daily or weekly",
      }),
      resource("runbook", "the steps to handle a known failure", {
        title: "the failure it handles",
        steps: "the steps in Markdown",
      }),
      resource("status_page", "the public page of system health", {
        name: "the page's name",
        domain: "where it is served",
      }),
      resource("slo", "a reliability target for a service", {
        target: "the objective, a percentage",
        window: "the measuring window in days",
      }),
      resource("host", "a machine that runs services", {
        hostname: "the machine's name",
        region: "where it runs",
      }),
      resource("container", "a running container on a host", {
        image: "the image it runs",
        host: "the host it runs on",
      }),
      resource("deployment", "a release rolled out to a service", {
        service: "what is deployed",
        version: "the version rolled out",
      }),
      resource("error_group", "errors grouped by their stack trace", {
        fingerprint: "the grouping key",
        service: "where they happen",
      }),
    ],
  },
];

/** The words of a resource's name: `pull_request` → `pull request`. */
function spoken(name: string): string {
  return name.replaceAll("_", " ");
}

function description(plan: ServerPlan, verb: Verb, item: Resource): string {
  const one = spoken(item.name);
  const many = spoken(item.plural);
  switch (verb) {
    case "list":
      return `List the ${many} in ${plan.home}, newest first, a page at a ` +
        `time. A ${one} is ${item.what}.`;
    case "get":
      return `Get one ${one} from ${plan.home} by its id, with every field.`;
    case "create":
      return `Create a ${one} in ${plan.home}: ${item.what}.`;
    case "update":
      return `Update the fields of an existing ${one} in ${plan.home}.`;
    case "delete":
      return `Delete a ${one} from ${plan.home} for good.`;
    case "search":
      return `Search the ${many} in ${plan.home} by keywords.`;
    case "acknowledge":
      return `Acknowledge a ${one} in ${plan.home}, so that it stops ` +
        `paging the on-call person.`;
  }
}

/** The tool's input, as the Zod shape `registerTool` takes. */
function inputOf(verb: Verb, item: Resource): Record<string, z.ZodType> {
  const id = z.string().describe(`The ${spoken(item.name)}'s id.`);
  const fields = Object.fromEntries(
    Object.entries(item.fields).map(([field, what]) => [
      field,
      z.string().describe(what),
    ]),
  );
  switch (verb) {
    case "list":
      return {
        limit: z.number().int().min(1).max(100).optional().describe(
          "How many to return (at most 100).",
        ),
        cursor: z.string().optional().describe("Where the last page ended."),
      };
    case "search":
      return {
        query: z.string().describe("The keywords to match."),
        limit: z.number().int().min(1).max(100).optional(),
      };
    case "create":
      return fields;
    case "update":
      return {
        id,
        ...Object.fromEntries(
          Object.entries(fields).map(([key, value]) => [key, value.optional()]),
        ),
      };
    default:
      return { id };
  }
}

/** The tool names of a plan, as the server lists them. */
export function toolNamesOf(plan: ServerPlan): string[] {
  return plan.resources.flatMap((item) =>
    plan.verbs.map((verb) => `${verb}_${item.name}`)
  );
}

/** A server with its plan's tools; each answers `NAME(ARGS JSON)`. */
export function serverOf(plan: ServerPlan): McpServerClass {
  const server = new McpServer({ name: plan.name, version: "1.0.0" });
  for (const item of plan.resources) {
    for (const verb of plan.verbs) {
      const name = `${verb}_${item.name}`;
      server.registerTool(name, {
        description: description(plan, verb, item),
        inputSchema: inputOf(verb, item),
      }, (args) => ({
        content: [{ type: "text", text: `${name}(${JSON.stringify(args)})` }],
      }));
    }
  }
  return server;
}

/** One connected server of the fixture. */
export interface Connected {
  readonly plan: ServerPlan;
  readonly server: McpServerClass;
  readonly client: Client;
}

/**
 * The three servers, each connected to its own client over a linked
 * in-memory pair; `close` closes every client and server.
 */
export async function connectServers(): Promise<{
  servers: Connected[];
  close(): Promise<void>;
}> {
  const servers: Connected[] = [];
  for (const plan of SERVERS) {
    const server = serverOf(plan);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "agent", version: "1.0.0" });
    await client.connect(clientSide);
    servers.push({ plan, server, client });
  }
  return {
    servers,
    async close() {
      for (const { client, server } of servers) {
        await client.close();
        await server.close();
      }
    },
  };
}

/**
 * The 8 tools a session finds and uses (wire names, with the servers'
 * prefixes), each with words that find it among the 300, and the
 * arguments it is called with.
 */
export const FOUND: readonly {
  readonly name: string;
  readonly query: string;
  readonly args: Record<string, unknown>;
}[] = [
  {
    name: "gh_create_issue",
    query: "create issue bug",
    args: { title: "Login fails", body: "Since 2.3." },
  },
  {
    name: "gh_list_pull_request",
    query: "list pull requests",
    args: { limit: 5 },
  },
  {
    name: "gh_search_repository",
    query: "search repositories keywords",
    args: { query: "billing" },
  },
  {
    name: "crm_get_contact",
    query: "get contact by id",
    args: { id: "c-17" },
  },
  {
    name: "crm_create_deal",
    query: "create deal sales opportunity",
    args: { title: "Renewal", amount: "1200000" },
  },
  {
    name: "crm_update_ticket",
    query: "update the fields of a ticket",
    args: { id: "t-9", priority: "urgent" },
  },
  {
    name: "ops_acknowledge_incident",
    query: "acknowledge the incident",
    args: { id: "inc-4" },
  },
  {
    name: "ops_list_deployment",
    query: "list deployments release rolled",
    args: { limit: 3 },
  },
];
