/**
 * The command line's help: the usage of all commands, or of one command
 * with its options, what they take and what its exit codes mean.
 *
 * @module
 */

import {
  type CommandName,
  COMMANDS,
  FLAGS,
  FORMATS,
  PROVIDERS,
} from "./args.ts";

/** The usage text: all commands, or one command's. */
export function usage(command?: CommandName): string {
  if (command !== undefined) {
    const { positionals, options, summary } = COMMANDS[command];
    const flags = [
      ...options.map((option) => `[--${option} ${VALUES[option]}]`),
      ...(FLAGS[command] ?? []).map((flag) => `[--${flag}]`),
    ];
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
  "fail-on": "cache-break|any",
  golden: "FILE",
  shares: "PARENT CHILD",
  provider: PROVIDERS.join("|"),
  port: "N",
  session: "SESSION",
  recording: "FILE",
};

const HELP: Record<CommandName, string[]> = {
  render: [
    "--scope NAME    a scope the config names (default: the global view)",
    ...wrapped(
      "--format F      text (default), json, or a form's request fields " +
        `(${FORMATS.slice(2).join(", ")}; Anthropic's with cache ` +
        "markers); --json is json",
    ),
    "Exit 1 when the assembly fails.",
  ],
  inspect: [
    "--scope NAME    a scope the config names (default: the global view)",
    "--serve         serve a live page of every scope on 127.0.0.1 (blocks",
    "                and tools by stability, cache markers, tokens,",
    "                contributors, gates, pruned and shadowed entries);",
    "                runs until interrupted",
    "--port N        the page's port (default 0: a free one; the URL is",
    "                printed)",
    "--session S     with --serve: chart a session module's requests",
    "                (cached, written, uncached tokens; see simulate)",
    "--recording F   with --serve: chart a recorded conversation's requests",
    "                (the provider's reported tokens and the verdicts; see",
    "                report)",
    "Tokens are counted with the o200k_base encoding.",
    "Exit 1 when the assembly fails.",
  ],
  check: [
    "--scope NAME    check only this scope (repeatable; the global view is",
    "                checked only when no --scope is given)",
    "--max-tokens N  fail when the system prompt plus the tools' JSON of",
    "                any view is over N tokens (o200k_base)",
    "--strict        cache-layout warnings (lintCache) fail too",
    "--golden FILE   compare each view's cached tiers (stable and agent, in",
    "                wire order) with the golden manifest FILE: a change",
    "                fails naming the scope, the entry and its contributor",
    "--update        with --golden: write FILE anew (to a temporary file,",
    "                then renamed)",
    "--shares PARENT CHILD  print the tokens scope CHILD's first request",
    "                shares with scope PARENT's and where they first differ;",
    "                fails when they share nothing",
    ...wrapped(
      `--provider P    with --shares: ${PROVIDERS.join(", ")} (default: all)`,
    ),
    "Assembles the global view and every named scope (or the --scope ones)",
    "twice (volatile sections are left out of the comparison) and prints",
    "lintCache's findings. Exit 1 on an error (an invalid tool name",
    "included), on two assemblies that differ, over the budget, on a golden",
    "manifest that differs, or on scopes that share nothing; warnings",
    "exit 0 unless --strict. A missing, truncated, edited or other-version",
    "golden manifest exits 2.",
  ],
  diff: [
    "--scope NAME    a scope both configs name (default: the global view)",
    "--fail-on WHAT  cache-break (default): exit 1 when the tools or the",
    "                system prompt changed; any: exit 1 on any difference",
    "                (the runtime context too)",
  ],
  watch: [
    "--scope NAME    a scope the config names (default: the global view)",
    "Runs until interrupted; --json writes one JSON object per line.",
  ],
  simulate: [
    ...wrapped(`--provider P    ${PROVIDERS.join(", ")} (default: all)`),
    "SESSION is a module whose default export is { prompt, steps, dispose? }",
    "(a SystemPrompt and step functions; see CacheSession in",
    "@rxprompt/system-prompt/cache) or a function returning it. Requests are",
    "built the README's way; tokens are counted with o200k_base (Anthropic's",
    "tokenizer differs: an estimate).",
  ],
  report: [
    ...wrapped(
      `--provider P    the cache rules to judge by: ${
        PROVIDERS.join(", ")
      } (default: the recording's own)`,
    ),
    "FILE is a conversation's JSON-lines recording (save(), onRecord).",
    "Per request: the reported input, cache reads and writes, the",
    "simulator's estimate for the same body (* where they differ), and for",
    "each request that read less than it could: the verdict (layout,",
    "conversation, request, provider, unknown), the provider's reason and",
    "the registration behind it (recorded with diagnostics: true). Totals",
    "observed and simulated. A recording cut mid-line is read up to its",
    "last complete record, and the report says so. Exit 2 on a file that",
    "is not a recording.",
  ],
};

const COMMON = [
  "CONFIG is a module whose default export is a SystemPrompt,",
  "{ prompt, scopes?, context?, dispose? } (dispose stops the config's own",
  "timers), or a (possibly async) function returning either. --json",
  "prints machine-readable output. --timeout SECONDS (default 10) bounds",
  "each wait: loading a config or session, each assembly (aborted at the",
  "limit; inspect --serve's too), watch's first view, each simulate or",
  "inspect --session step, reading a recording; past it, exit 2 with one",
  "line naming what did not settle (watch and inspect --serve report it",
  "and go on). Exit codes: 0 ok, 1 findings, 2 usage or config error.",
  "rxprompt --version prints the version.",
];

/**
 * An option's line (its name padded to 16 columns, then its text) in
 * lines of at most 72 characters, the text's further lines indented.
 */
function wrapped(option: string): string[] {
  const head = option.slice(0, 16);
  const lines: string[] = [];
  let line = head;
  for (const word of option.slice(16).split(" ")) {
    if (line.length > 16 && line.length + 1 + word.length > 72) {
      lines.push(line);
      line = " ".repeat(16);
    }
    line += line.length > 16 ? ` ${word}` : word;
  }
  return [...lines, line];
}
