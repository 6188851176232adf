/**
 * The command line's arguments, parsed with `node:util`'s `parseArgs`
 * (built into Node, Deno and Bun) and checked per command. Every mistake is
 * a {@linkcode CliError}: one line that says what is wrong and what would be
 * valid.
 *
 * @module
 */

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
    options: ["scope"],
    summary: "tabulate sections and tools with their sizes in tokens",
  },
  check: {
    positionals: ["CONFIG"],
    options: ["max-tokens"],
    summary: "assemble every scope twice: errors, non-determinism, budget",
  },
  diff: {
    positionals: ["CONFIG_A", "CONFIG_B"],
    options: ["scope"],
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
} as const;

/** The providers of `simulate --provider`. */
export const PROVIDERS = ["anthropic", "openai", "openai-explicit"] as const;

/** A provider whose caching rules `simulate` applies. */
export type Provider = typeof PROVIDERS[number];

/** A command's name. */
export type CommandName = keyof typeof COMMANDS;

/** The render formats of `render --format`. */
export const FORMATS = [
  "text",
  "json",
  "openai-chat",
  "openai-responses",
  "anthropic",
] as const;

/** A render format. */
export type Format = typeof FORMATS[number];

/** Parsed arguments of one command. */
export interface Args {
  readonly command: CommandName;
  /** The config paths, as many as the command's positionals. */
  readonly configs: readonly string[];
  readonly json: boolean;
  readonly scope?: string;
  readonly format?: Format;
  readonly maxTokens?: number;
  readonly provider?: Provider;
}

/** What the command line asks for: a command, or help. */
export type Request =
  | { readonly help: true; readonly command?: CommandName }
  | ({ readonly help: false } & Args);

const STRING_OPTIONS = ["scope", "format", "max-tokens", "provider"] as const;

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
      ...Object.fromEntries(
        STRING_OPTIONS.map((name) => [name, { type: "string" as const }]),
      ),
    },
  });
  const positionals = tokens.flatMap((token) =>
    token.kind === "positional" ? [token.value] : []
  );
  const [first, ...configs] = positionals;
  const help = tokens.some((token) =>
    token.kind === "option" && token.name === "help"
  );
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
  const values = readOptions(command, tokens);
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

function readOptions(
  command: CommandName,
  tokens: readonly ArgToken[],
): Omit<Args, "command" | "configs"> {
  const allowed: readonly string[] = COMMANDS[command].options;
  const seen = new Map<string, string>();
  let json = false;
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    const { name, rawName, value, inlineValue } = token;
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
          [...allowed.map((option) => `--${option}`), "--json"].join(", ")
        } (rxprompt ${command} --help)`,
      );
    }
    if (value === undefined || (!inlineValue && value.startsWith("-"))) {
      throw new CliError(`option ${rawName} of ${command} needs a value`);
    }
    if (seen.has(name)) {
      throw new CliError(`option ${rawName} of ${command} is given twice`);
    }
    seen.set(name, value);
  }
  return {
    json,
    scope: seen.get("scope"),
    format: readFormat(seen.get("format"), json),
    maxTokens: readMaxTokens(seen.get("max-tokens")),
    // Only when given: the other commands' arguments keep their shape.
    ...optional("provider", readProvider(seen.get("provider"))),
  };
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
  if (!(FORMATS as readonly string[]).includes(format)) {
    throw new CliError(
      `unknown --format ${JSON.stringify(format)}; expected one of ${
        FORMATS.join(", ")
      }`,
    );
  }
  if (json && format === "text") {
    throw new CliError("--json and --format text contradict each other");
  }
  return format === "text" && json ? "json" : format as Format;
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

/** The usage text: all commands, or one command's. */
export function usage(command?: CommandName): string {
  if (command !== undefined) {
    const { positionals, options, summary } = COMMANDS[command];
    const flags = options.map((option) => `[--${option} ${VALUES[option]}]`);
    return [
      `rxprompt ${command} ${[...positionals, ...flags, "[--json]"].join(" ")}`,
      "",
      `  ${summary}`,
      "",
      ...HELP[command].map((line) => `  ${line}`),
      "",
      ...COMMON,
    ].join("\n");
  }
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  return [
    "rxprompt COMMAND CONFIG... [options]",
    "",
    "Commands:",
    ...Object.entries(COMMANDS).map(([name, { positionals, summary }]) =>
      `  ${name.padEnd(width)}  ${positionals.join(" ")}: ${summary}`
    ),
    "",
    ...COMMON,
    "  rxprompt COMMAND --help  shows a command's options.",
  ].join("\n");
}

const VALUES: Record<string, string> = {
  scope: "NAME",
  format: FORMATS.join("|"),
  "max-tokens": "N",
  provider: PROVIDERS.join("|"),
};

const HELP: Record<CommandName, string[]> = {
  render: [
    "--scope NAME    a scope the config names (default: the global view)",
    "--format F      text (default), json, openai-chat, openai-responses,",
    "                or anthropic (with cache markers); --json is json",
    "Exit 1 when the assembly fails.",
  ],
  inspect: [
    "--scope NAME    a scope the config names (default: the global view)",
    "Tokens are counted with the o200k_base encoding.",
    "Exit 1 when the assembly fails.",
  ],
  check: [
    "--max-tokens N  fail when the system prompt plus the tools' JSON of",
    "                any view is over N tokens (o200k_base)",
    "Assembles the global view and every named scope twice. Exit 1 on an",
    "error, on two assemblies that differ, or over the budget.",
  ],
  diff: [
    "--scope NAME    a scope both configs name (default: the global view)",
    "Exit 1 when the two assemblies differ.",
  ],
  watch: [
    "--scope NAME    a scope the config names (default: the global view)",
    "Runs until interrupted; --json writes one JSON object per line.",
  ],
  simulate: [
    "--provider P    anthropic, openai (automatic) or openai-explicit",
    "                (default: all three)",
    "SESSION is a module whose default export is { prompt, steps, dispose? }",
    "(a SystemPrompt and step functions; see CacheSession in",
    "@rxprompt/system-prompt/cache) or a function returning it. Requests are",
    "built the README's way; tokens are counted with o200k_base (Anthropic's",
    "tokenizer differs: an estimate).",
  ],
};

const COMMON = [
  "CONFIG is a module whose default export is a SystemPrompt,",
  "{ prompt, scopes?, context? }, or a (possibly async) function returning",
  "either. --json prints machine-readable output. Exit codes: 0 ok,",
  "1 findings, 2 usage or config error.",
];
