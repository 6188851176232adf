/**
 * `@rxprompt/system-prompt/mcp`: the tools of an MCP server as a live tool
 * source for a registrar, and the way back from a tool name to the server.
 *
 * `mcpTools(client)` lists every page of the server's tools when its
 * `tools$` is subscribed (registering it does that), lists again on each
 * `notifications/tools/list_changed`, and maps every tool to a name that
 * every wire adapter accepts. `call` maps the name back and calls the
 * server. Takes a connected `Client` of `@modelcontextprotocol/sdk` (a peer
 * dependency of this subpath only).
 *
 * @example
 * ```ts
 * import { Client } from "@modelcontextprotocol/sdk/client/index.js";
 * import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
 * import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 * import { mcpTools } from "@rxprompt/system-prompt/mcp";
 *
 * // An in-process server; a real one would be reached over stdio or HTTP.
 * const server = new McpServer({ name: "clock", version: "1.0.0" });
 * server.registerTool("now", { description: "The time." }, () => ({
 *   content: [{ type: "text", text: "12:00" }],
 * }));
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await server.connect(serverSide);
 * const client = new Client({ name: "agent", version: "1.0.0" });
 * await client.connect(clientSide);
 *
 * const prompt = new SystemPrompt();
 * const clock = mcpTools(client, { prefix: "clock_" });
 * prompt.tools(clock.tools$);
 * await clock.ready;
 * const { tools } = await prompt.assemble();
 * console.log(tools.map((tool) => tool.name)); // ["clock_now"]
 * const result = await clock.call("clock_now", {});
 * console.log(result); // { content: [{ type: "text", text: "12:00" }] }
 *
 * await prompt.dispose(); // stops listening
 * await client.close();
 * ```
 *
 * @module
 */

import {
  catchError,
  defer,
  EMPTY,
  finalize,
  map,
  merge,
  Observable,
  of,
  type OperatorFunction,
  ReplaySubject,
  share,
  Subject,
  type Subscription,
  tap,
} from "rxjs";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types";
import { quote, SystemPromptError } from "../../src/errors.ts";
import type {
  ToolDeferral,
  ToolProviderResult,
  ToolSchema,
} from "../../src/types.ts";
import { readDeferral } from "../../src/kinds/tool_deferral.ts";
import { listing$, type McpTool, type McpToolsClient } from "./listing.ts";
import { toolsListChanged$ } from "./list_changed.ts";
import { wireNames } from "./names.ts";

export type { McpToolsClient };

/**
 * Options of {@linkcode mcpTools}.
 *
 * @example
 * ```ts
 * import type { McpToolsOptions } from "@rxprompt/system-prompt/mcp";
 *
 * const options: McpToolsOptions = { prefix: "github_" };
 * ```
 */
export interface McpToolsOptions {
  /**
   * Put before every tool name (default `""`): keeps the tools of several
   * servers apart. At most 32 characters of `[a-zA-Z0-9_-]`.
   */
  prefix?: string;
  /**
   * Defers the server's tools (SPEC §10.3): `true`, all of them; `{ above:
   * n }`, all of them while the server lists more than `n`; `false` (the
   * default), none. Deferred tools go in the assembly's `deferredTools`,
   * listed only when the model finds them; `call` routes them as any other.
   * Carried in each listing's `defer`, so the registration's own `defer`
   * option, when given, wins.
   */
  defer?: ToolDeferral;
}

/**
 * A live tool source for one MCP client.
 *
 * @example
 * ```ts
 * import type { McpToolSource } from "@rxprompt/system-prompt/mcp";
 *
 * async function route(source: McpToolSource, name: string, input: unknown) {
 *   return source.owns(name) ? await source.call(name, input) : undefined;
 * }
 * ```
 */
export interface McpToolSource {
  /**
   * The server's tools: every page listed on subscription (the first value),
   * and again after each `notifications/tools/list_changed`. Errors when
   * the first listing fails; a later failure keeps the last good list and
   * goes to `errors$`. Shared: subscribers share one listing, and the last
   * unsubscription stops listening.
   */
  readonly tools$: Observable<ToolProviderResult>;
  /**
   * The first listing of the current (or the last) subscription of
   * `tools$`: resolves after it succeeds, rejects if it fails or if the
   * subscription ends first. Read without any subscription, it rejects at
   * once with `PROVIDER_FAILED` saying to register `tools$` first, since no
   * listing would ever start.
   */
  readonly ready: Promise<void>;
  /** Failures of listings after the first (the last good list stays). */
  readonly errors$: Observable<unknown>;
  /**
   * Calls the tool that `name` (a name of `tools$`) stands for, with `args`
   * as its arguments; resolves to the server's result. Before any listing
   * it rejects with `UNKNOWN_TOOL` saying to register `tools$` and await
   * `ready`.
   */
  call(name: string, args: unknown): Promise<CallToolResult>;
  /**
   * One function per tool of the latest listing, by name, each calling
   * {@linkcode McpToolSource.call}: pass it as `toAISDK(assembly, { execute
   * })`. Read it after `ready` (a new object each time, of the tools listed
   * then); when an assembly leaves some of the source's tools out, pass
   * only those it has.
   */
  readonly execute: Readonly<
    Record<string, (input: unknown) => Promise<CallToolResult>>
  >;
  /** Whether `name` is a tool of this source's latest listing. */
  owns(name: string): boolean;
}

/**
 * The tools of the MCP server behind `client`, live: register
 * `source.tools$` with `registrar.tools(...)`, route calls with
 * `source.call(name, args)`. Disposing the registration stops listening.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` for a client without
 * `listTools` and `callTool`, a prefix outside `[a-zA-Z0-9_-]{0,32}`, or a
 * `defer` that is not `true`, `false` or `{ above: n }`.
 *
 * @example
 * ```ts
 * import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
 * import type { Registrar } from "@rxprompt/system-prompt";
 * import { mcpTools } from "@rxprompt/system-prompt/mcp";
 *
 * // `client` is connected; disposing `plugin` stops listening.
 * async function loadGitHub(plugin: Registrar, client: Client) {
 *   const github = mcpTools(client, { prefix: "github_" });
 *   plugin.tools(github.tools$);
 *   await github.ready; // the first listing is in every assembly from now on
 *   return github; // route the model's calls with github.call(name, input)
 * }
 * ```
 */
export function mcpTools(
  client: McpToolsClient,
  options: McpToolsOptions = {},
): McpToolSource {
  const { prefix, defer: deferral } = checkOptions(client, options);
  const errors = new Subject<unknown>();
  let names = new Map<string, string>();
  // The first listing of the current (or last) subscription of tools$.
  let first: FirstListing | undefined;

  const tools$ = defer(() => {
    const current = first = firstListing();
    let listed = false;
    // Listening starts before the first listing, so no change is missed.
    return merge(toolsListChanged$(client), of(undefined)).pipe(
      relist(() =>
        listing$(client).pipe(catchError((error: unknown) => {
          if (!listed) throw error;
          errors.next(error);
          return EMPTY;
        }))
      ),
      map((tools) => {
        const mapped = toResult(tools, { prefix, deferral });
        names = mapped.names;
        listed = true;
        return mapped.result;
      }),
      tap({ next: () => current.resolve(), error: current.reject }),
      // Settles a first listing the subscription never got to (no-op after).
      finalize(() => current.reject(notListed("ended before it"))),
    );
  }).pipe(share({
    connector: () => new ReplaySubject<ToolProviderResult>(1),
    resetOnError: true,
    resetOnComplete: true,
    resetOnRefCountZero: true,
  }));

  function call(name: string, args: unknown): Promise<CallToolResult> {
    const tool = names.get(name);
    if (tool === undefined) {
      return Promise.reject(unknownTool(name, names));
    }
    // Without a result schema the SDK validates against CallToolResult.
    return client.callTool({
      name: tool,
      arguments: args as Record<string, unknown> | undefined,
    }) as Promise<CallToolResult>;
  }

  return {
    tools$,
    get ready(): Promise<void> {
      return first?.promise ??
        Promise.reject(notListed("no subscription of tools$ has started"));
    },
    errors$: errors.asObservable(),
    call,
    get execute() {
      return Object.fromEntries(
        [...names.keys()].map((name) => [
          name,
          (input: unknown) => call(name, input),
        ]),
      );
    },
    owns(name: string): boolean {
      return names.has(name);
    },
  };
}

/** The first listing of one subscription of `tools$`, as a promise. */
interface FirstListing {
  readonly promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

function firstListing(): FirstListing {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  // Whoever does not await `ready` sees the failure on tools$ instead.
  promise.catch(() => {});
  return { promise, resolve, reject };
}

const REGISTER_FIRST = "register source.tools$ with registrar.tools(...) " +
  "(or subscribe to it), then await source.ready";

function notListed(why: string): SystemPromptError {
  return new SystemPromptError(
    "PROVIDER_FAILED",
    `The MCP tool source has no first listing to wait for: ${why}; ` +
      `${REGISTER_FIRST}.`,
  );
}

/**
 * Lists on each trigger, with at most one listing in flight and one
 * pending: triggers during a listing collapse into one listing after it,
 * so a burst of `list_changed` costs two requests and a steady stream of
 * them still delivers a fresh list after each listing (the latest wins, as
 * listings run one after the other).
 */
function relist<T>(list: () => Observable<T>): OperatorFunction<unknown, T> {
  return (trigger$) =>
    new Observable<T>((subscriber) => {
      let busy = false;
      let pending = false;
      let triggersDone = false;
      let inFlight: Subscription | undefined;
      function start(): void {
        busy = true;
        pending = false;
        const started = list().subscribe({
          next: (value) => subscriber.next(value),
          error: (error: unknown) => subscriber.error(error),
          complete: () => {
            busy = false;
            inFlight = undefined;
            if (pending) start();
            else if (triggersDone) subscriber.complete();
          },
        });
        if (busy && !started.closed) inFlight = started;
      }
      const triggers = trigger$.subscribe({
        next: () => {
          if (busy) pending = true;
          else start();
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          triggersDone = true;
          if (!busy) subscriber.complete();
        },
      });
      return () => {
        triggers.unsubscribe();
        inFlight?.unsubscribe();
      };
    });
}

function checkOptions(
  client: unknown,
  options: McpToolsOptions,
): { prefix: string; defer: ToolDeferral | undefined } {
  const { listTools, callTool } = (client ?? {}) as Record<string, unknown>;
  if (typeof listTools !== "function" || typeof callTool !== "function") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `mcpTools needs an MCP client with listTools and callTool (a Client ` +
        `of @modelcontextprotocol/sdk); got ${quote(client)}.`,
    );
  }
  const { prefix = "", defer } = options ?? {};
  if (typeof prefix !== "string" || !/^[a-zA-Z0-9_-]{0,32}$/.test(prefix)) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `The prefix of mcpTools must be at most 32 characters of ` +
        `[a-zA-Z0-9_-], so that tool names pass every adapter; got ` +
        `${quote(prefix)}.`,
    );
  }
  return {
    prefix,
    defer: defer === undefined ? undefined : readDeferral(defer, {
      code: "INVALID_CONFIG",
      where: () => "The defer option of mcpTools",
    }),
  };
}

function toResult(
  tools: readonly McpTool[],
  { prefix, deferral }: {
    prefix: string;
    deferral: ToolDeferral | undefined;
  },
): { result: ToolProviderResult; names: Map<string, string> } {
  const wire = wireNames(tools.map((tool) => tool.name), prefix);
  const names = new Map<string, string>();
  const schemas: ToolSchema[] = tools.map((tool, index) => {
    names.set(wire[index], tool.name);
    return {
      name: wire[index],
      description: tool.description ?? "",
      parameters: tool.inputSchema,
    };
  });
  return {
    result: deferral === undefined ? { schemas } : { schemas, defer: deferral },
    names,
  };
}

function unknownTool(
  name: string,
  names: ReadonlyMap<string, string>,
): SystemPromptError {
  const known = [...names.keys()].sort();
  return new SystemPromptError(
    "UNKNOWN_TOOL",
    `Tool ${quote(name)} is not a tool of this MCP source; ` +
      (known.length === 0
        ? `it has listed none yet: ${REGISTER_FIRST}.`
        : `its tools are ${known.join(", ")}.`),
  );
}
