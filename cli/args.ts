/**
 * The command line's arguments, parsed with `node:util`'s `parseArgs`
 * (built into Node, Deno and Bun) and checked per command. Every mistake is
 * a {@linkcode CliError}: one line that says what is wrong and what would be
 * valid. The help texts are `help.ts`'s.
 *
 * @module
 */

import {
  type CacheProvider,
  formNamed,
  FORMS,
  RULE_TABLE,
} from "../adapters/forms.ts";
import { type ArgToken, node } from "./node.ts";
import { CliError } from "./cli_error.ts";

/** The commands, with their positionals and their own string options. */
export const COMMANDS = {
  render: {
    positionals: ["CONFIG"],
    options: ["scope", "format"],
    summary: "print the rendered system prompt (or a wire format)",
  },
  inspect: {
    positionals: ["CONFIG"],
    options: ["scope", "port", "session", "recording"],
    summary: "tabulate sections and tools with their sizes in tokens " +
      "(--serve: a live page)",
  },
  check: {
    positionals: ["CONFIG"],
    options: ["scope", "max-tokens", "golden", "shares", "provider"],
    summary:
      "assemble every scope twice: errors, non-determinism, budget, cache lint",
  },
  diff: {
    positionals: ["CONFIG_A", "CONFIG_B"],
    options: ["scope", "fail-on"],
    summary: "what changed between two configs, and where the cache breaks",
  },
  watch: {
    positionals: ["CONFIG"],
    options: ["scope"],
    summary: "re-render on every change of the config or of the registry",
  },
  simulate: {
    positionals: ["SESSION"],
    options: ["provider"],
    summary: "how much of a session's input the prompt cache would serve",
  },
  report: {
    positionals: ["FILE"],
    options: ["provider"],
    summary: "what the provider's cache served in a recorded conversation, " +
      "and why each miss",
  },
} as const;

/** The commands' own flags (options without a value). */
export const FLAGS: { readonly [K in CommandName]?: readonly string[] } = {
  check: ["strict", "update"],
  inspect: ["serve"],
};

/** The cache rules of `--provider`: the table's, in report order. */
export const PROVIDERS: readonly CacheProvider[] = RULE_TABLE
  .ids as readonly CacheProvider[];

/** A provider whose caching rules `simulate` applies. */
export type Provider = CacheProvider;

/** A command's name. */
export type CommandName = keyof typeof COMMANDS;

/**
 * The render formats of `render --format`: `text`, `json` and the forms
 * that render an assembly (by id; 0.4's names are accepted too).
 */
export const FORMATS: readonly string[] = [
  "text",
  "json",
  ...FORMS.filter((form) => form.render !== undefined).map((form) => form.id),
];

/** A render format: `text`, `json`, or a form's id or 0.4 name. */
export type Format = string;

/** What makes `diff` exit 1: a broken cache (default) or any difference. */
export type FailOn = "cache-break" | "any";

/** How long each wait of a command may take, by default (`--timeout`). */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** Parsed arguments of one command. */
export interface Args {
  readonly command: CommandName;
  /** The config paths, as many as the command's positionals. */
  readonly configs: readonly string[];
  readonly json: boolean;
  readonly scope?: string;
  /** Every `--scope` of `check` (repeatable), in the order given. */
  readonly scopes?: readonly string[];
  readonly format?: Format;
  readonly maxTokens?: number;
  /** `check --strict`: cache-lint warnings fail too (present only when given). */
  readonly strict?: true;
  /** `check --golden FILE`: the golden manifest to compare with (or write). */
  readonly golden?: string;
  /** `check --update`: rewrite the golden manifest (present only when given). */
  readonly update?: true;
  /** `check --shares PARENT CHILD`: the two scopes' names. */
  readonly shares?: readonly [string, string];
  readonly failOn?: FailOn;
  /**
   * How long each wait may take, in milliseconds (`--timeout`): loading a
   * config or session, each assembly, watch's first view, each step.
   */
  readonly timeoutMs?: number;
  readonly provider?: Provider;
  /** `inspect --serve`: serve the inspector page (present only when given). */
  readonly serve?: true;
  /** `inspect --serve --port N` (0: a free port; absent: 0). */
  readonly port?: number;
  /** `inspect --serve --session SESSION`: a session module to chart. */
  readonly session?: string;
  /** `inspect --serve --recording FILE`: a recorded conversation to chart. */
  readonly recording?: string;
}

/** What the command line asks for: a command, or help. */
export type Request =
  | {
    readonly help: true;
    readonly command?: CommandName;
    /** `--version`: print the version instead of the usage. */
    readonly version?: true;
  }
  | ({ readonly help: false } & Args);

const STRING_OPTIONS = [
  "scope",
  "format",
  "max-tokens",
  "fail-on",
  "timeout",
  "provider",
  "port",
  "session",
  "recording",
  "golden",
  "shares",
] as const;

/** Options every command takes, besides `--json` and `--help`. */
const COMMON_OPTIONS = ["timeout"] as const;

/** Options that may be given more than once, per command. */
const REPEATABLE: Partial<Record<CommandName, readonly string[]>> = {
  check: ["scope"],
};

/**
 * Parses `argv` (without the runtime and script).
 *
 * @throws {CliError} for a missing or unknown command, an unknown or
 * repeated option, a missing value, or the wrong number of configs
 */
export function parseCommandLine(argv: readonly string[]): Request {
  const { tokens } = node.parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: false,
    tokens: true,
    options: {
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
      strict: { type: "boolean" },
      serve: { type: "boolean" },
      version: { type: "boolean", short: "V" },
      update: { type: "boolean" },
      ...Object.fromEntries(
        STRING_OPTIONS.map((name) => [name, { type: "string" as const }]),
      ),
    },
  });
  // `--shares PARENT CHILD`: the positional right after the option's value
  // is its second value, not a config.
  const child = sharesChild(tokens);
  const positionals = tokens.flatMap((token) =>
    token.kind === "positional" && token !== child ? [token.value] : []
  );
  const [first, ...configs] = positionals;
  const help = tokens.some((token) =>
    token.kind === "option" && token.name === "help"
  );
  const version = tokens.some((token) =>
    token.kind === "option" && token.name === "version"
  );
  if (version && first === undefined && !help) {
    return { help: true, version: true };
  }
  if (first === "help") {
    return { help: true, command: commandNamed(configs[0]) };
  }
  if (first === undefined) {
    if (help) return { help: true };
    throw new CliError(
      `missing command; expected one of ${Object.keys(COMMANDS).join(", ")} ` +
        `(rxprompt --help)`,
    );
  }
  const command = commandNamed(first)!;
  if (help) return { help: true, command };
  const values = readOptions(command, tokens, child);
  const expected = COMMANDS[command].positionals;
  if (configs.length !== expected.length) {
    throw new CliError(
      `${command} takes ${expected.join(" ")}, got ${
        configs.length === 0 ? "none" : configs.join(" ")
      } (rxprompt ${command} --help)`,
    );
  }
  return { help: false, command, configs, ...values };
}

function commandNamed(name: string | undefined): CommandName | undefined {
  if (name === undefined) return undefined;
  if (Object.hasOwn(COMMANDS, name)) return name as CommandName;
  throw new CliError(
    `unknown command ${JSON.stringify(name)}; expected one of ${
      Object.keys(COMMANDS).join(", ")
    } (rxprompt --help)`,
  );
}

/** The positional token that follows `--shares PARENT`, if any. */
function sharesChild(
  tokens: readonly ArgToken[],
): ArgToken | undefined {
  const at = tokens.findIndex((token) =>
    token.kind === "option" && token.name === "shares" &&
    token.value !== undefined && !token.inlineValue
  );
  const next = at === -1 ? undefined : tokens[at + 1];
  return next?.kind === "positional" ? next : undefined;
}

function readOptions(
  command: CommandName,
  tokens: readonly ArgToken[],
  child?: ArgToken,
): Omit<Args, "command" | "configs"> {
  const allowed: readonly string[] = [
    ...COMMANDS[command].options,
    ...COMMON_OPTIONS,
  ];
  const repeatable = REPEATABLE[command] ?? [];
  const seen = new Map<string, string>();
  const scopes: string[] = [];
  let json = false;
  const given = new Set<string>();
  const flags = FLAGS[command] ?? [];
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    const { name, rawName, value, inlineValue } = token;
    if (flags.includes(name)) {
      if (value !== undefined) {
        throw new CliError(`option --${name} of ${command} takes no value`);
      }
      given.add(name);
      continue;
    }
    if (name === "version") {
      throw new CliError(
        `--version takes no command (rxprompt --version)`,
      );
    }
    if (name === "json" || name === "help") {
      if (value !== undefined) {
        throw new CliError(`option --${name} of ${command} takes no value`);
      }
      json = json || name === "json";
      continue;
    }
    if (!allowed.includes(name)) {
      throw new CliError(
        `${command} has no option ${rawName}; its options are ${
          [...allowed, ...flags, "json"].map((option) => `--${option}`)
            .join(", ")
        } (rxprompt ${command} --help)`,
      );
    }
    if (value === undefined || (!inlineValue && value.startsWith("-"))) {
      throw new CliError(`option ${rawName} of ${command} needs a value`);
    }
    if (name === "scope") scopes.push(value);
    if (seen.has(name) && !repeatable.includes(name)) {
      throw new CliError(`option ${rawName} of ${command} is given twice`);
    }
    seen.set(name, value);
  }
  const shares = readShares(seen.get("shares"), child);
  if (given.has("update") && !seen.has("golden")) {
    throw new CliError(
      `--update of check rewrites the golden manifest: give it --golden FILE`,
    );
  }
  if (command === "check" && seen.has("provider") && shares === undefined) {
    throw new CliError(
      `--provider of check chooses the rules of --shares PARENT CHILD: give ` +
        `it --shares`,
    );
  }
  return {
    json,
    ...(repeatable.includes("scope")
      ? { scopes: unique(scopes, command) }
      : { scope: seen.get("scope") }),
    format: readFormat(seen.get("format"), json),
    maxTokens: readMaxTokens(seen.get("max-tokens")),
    ...(given.has("strict") ? { strict: true } : {}),
    ...optional("golden", seen.get("golden")),
    ...(given.has("update") ? { update: true as const } : {}),
    ...optional("shares", shares),
    ...(command === "diff" ? { failOn: readFailOn(seen.get("fail-on")) } : {}),
    timeoutMs: readTimeout(seen.get("timeout")),
    // Only when given: the other commands' arguments keep their shape.
    ...optional("provider", readProvider(seen.get("provider"))),
    ...(command === "inspect" ? serveOptions(seen, given, json) : {}),
  };
}

/**
 * `inspect`'s `--serve`, `--port` and `--session`: the last two need the
 * first, which shows every scope as a page (no `--scope`, no `--json`).
 */
function serveOptions(
  seen: ReadonlyMap<string, string>,
  given: ReadonlySet<string>,
  json: boolean,
): { serve?: true; port?: number; session?: string; recording?: string } {
  if (!given.has("serve")) {
    const needs = ["port", "session", "recording"].find((name) =>
      seen.has(name)
    );
    if (needs !== undefined) {
      throw new CliError(
        `option --${needs} of inspect needs --serve (rxprompt inspect ` +
          `CONFIG --serve [--port N] [--session SESSION | --recording FILE])`,
      );
    }
    return {};
  }
  if (seen.has("session") && seen.has("recording")) {
    throw new CliError(
      "inspect --serve charts a session module or a recording, not both; " +
        "give --session SESSION or --recording FILE",
    );
  }
  if (seen.has("scope")) {
    throw new CliError(
      "inspect --serve shows every scope of the config; leave out --scope",
    );
  }
  if (json) {
    throw new CliError(
      "inspect --serve serves a page, not JSON; leave out --json (or drop " +
        "--serve for the JSON tables)",
    );
  }
  return {
    serve: true,
    port: readPort(seen.get("port")),
    ...optional("session", seen.get("session")),
    ...optional("recording", seen.get("recording")),
  };
}

function readPort(value: string | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!/^[0-9]+$/.test(value) || port > 65_535) {
    throw new CliError(
      `--port must be a whole number from 0 to 65535 (0 picks a free ` +
        `port), got ${JSON.stringify(value)}`,
    );
  }
  return port;
}

function readShares(
  parent: string | undefined,
  child: ArgToken | undefined,
): readonly [string, string] | undefined {
  if (parent === undefined) return undefined;
  if (child?.kind !== "positional") {
    throw new CliError(
      `--shares takes two scope names, PARENT CHILD (rxprompt check CONFIG ` +
        `--shares PARENT CHILD)`,
    );
  }
  return [parent, child.value];
}

function unique(scopes: string[], command: CommandName): string[] {
  const repeated = scopes.find((scope, index) =>
    scopes.indexOf(scope) !== index
  );
  if (repeated !== undefined) {
    throw new CliError(
      `option --scope of ${command} names ${JSON.stringify(repeated)} twice`,
    );
  }
  return scopes;
}

function readFailOn(value: string | undefined): FailOn {
  if (value === undefined || value === "cache-break" || value === "any") {
    return value ?? "cache-break";
  }
  throw new CliError(
    `unknown --fail-on ${JSON.stringify(value)}; expected cache-break ` +
      `(default: exit 1 when the prompt cache breaks) or any (exit 1 on ` +
      `any difference)`,
  );
}

function readTimeout(value: string | undefined): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  const seconds = Number(value);
  if (
    !/^[0-9]+(\.[0-9]+)?$/.test(value) || !(seconds > 0) ||
    seconds > 86_400
  ) {
    throw new CliError(
      `--timeout must be a positive number of seconds (at most 86400), ` +
        `got ${JSON.stringify(value)}`,
    );
  }
  return Math.ceil(seconds * 1000);
}

function optional<K extends string, V>(
  key: K,
  value: V | undefined,
): { [key in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [key in K]?: V };
}

function readProvider(value: string | undefined): Provider | undefined {
  if (value === undefined) return undefined;
  if ((PROVIDERS as readonly string[]).includes(value)) {
    return value as Provider;
  }
  throw new CliError(
    `unknown --provider ${JSON.stringify(value)}; expected one of ${
      PROVIDERS.join(", ")
    }`,
  );
}

function readFormat(
  format: string | undefined,
  json: boolean,
): Format | undefined {
  if (format === undefined) return json ? "json" : undefined;
  if (
    !FORMATS.includes(format) && formNamed(format)?.render === undefined
  ) {
    throw new CliError(
      `unknown --format ${JSON.stringify(format)}; expected one of ${
        FORMATS.join(", ")
      }`,
    );
  }
  if (json && format === "text") {
    throw new CliError("--json and --format text contradict each other");
  }
  return format === "text" && json ? "json" : format;
}

function readMaxTokens(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const tokens = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(tokens)) {
    throw new CliError(
      `--max-tokens must be a whole number of tokens, got ${
        JSON.stringify(value)
      }`,
    );
  }
  return tokens;
}
