/**
 * The rxprompt command run as a subprocess on the example configs (SPEC
 * 7.10): exit codes, parsed `--json` output, one stderr line for usage and
 * config errors, colour only on a terminal. Deno-only (subprocesses).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { toMessages } from "../../adapters/anthropic/mod.ts";
import { toChatCompletions } from "../../adapters/openai/mod.ts";
import {
  type AssembleContext,
  countAssemblyTokens,
  diffAssemblies,
  type PromptAssembly,
  renderPrompt,
} from "../../mod.ts";
import codingAgent from "../../examples/coding_agent.ts";
import supportBot from "../../examples/support_bot.ts";
import {
  cliArgs,
  hasEscapes,
  repoPath,
  type Run,
  rxprompt,
} from "./cli_process.ts";

const CODING = "examples/coding_agent.ts";
const SUPPORT = "examples/support_bot.ts";
const fixture = (name: string) => `tests/cli/fixtures/${name}.ts`;

/** The coding agent's assembly for a scope, in this process. */
function codingAssembly(scope?: string): Promise<PromptAssembly> {
  return codingAgent.prompt.assemble(codingAgent.context(scope));
}

/** Exit 2 with exactly one stderr line that matches `pattern`, no stdout. */
function assertUsageError(run: Run, pattern: RegExp): void {
  assert.equal(run.code, 2, `exit code; stderr: ${run.stderr}`);
  assert.equal(run.stdout, "");
  const lines = run.stderr.split("\n").filter((line) => line !== "");
  assert.equal(lines.length, 1, `one stderr line, got: ${run.stderr}`);
  assert.match(lines[0], /^rxprompt: /);
  assert.match(lines[0], pattern);
}

function parse(run: Run): Record<string, unknown> {
  assert.equal(run.stderr, "", "nothing on stderr");
  return JSON.parse(run.stdout);
}

describe("rxprompt render", () => {
  it("prints the rendered system prompt of the global view", async () => {
    const run = await rxprompt(["render", CODING]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, renderPrompt(await codingAssembly()) + "\n");
  });

  it("--json gives the assembly, prompt and scope of --scope", async () => {
    const run = await rxprompt([
      "render",
      CODING,
      "--scope",
      "reviewer",
      "--json",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const output = parse(run);
    const expected = await codingAssembly("reviewer");
    assert.equal(output.scope, "reviewer");
    assert.deepEqual(output.assembly, JSON.parse(JSON.stringify(expected)));
    assert.equal(output.prompt, renderPrompt(expected));
    const tools = expected.tools.map((tool) => tool.name);
    assert.ok(tools.includes("submit_review") && !tools.includes("edit_file"));
    assert.ok(
      tools.includes("read_file") &&
        expected.sections.some((section) => section.name === "git"),
      "the coder's tools and sections, inherited through the scope chain",
    );
  });

  it("--format openai-chat and anthropic print the adapters' request fields", async () => {
    const chat = await rxprompt(["render", CODING, "--format", "openai-chat"]);
    assert.equal(chat.code, 0, chat.stderr);
    assert.deepEqual(
      parse(chat),
      JSON.parse(JSON.stringify(toChatCompletions(await codingAssembly()))),
    );
    const context = { scope: "enterprise", today: "2026-12-02" };
    const anthropic = await rxprompt([
      "render",
      SUPPORT,
      "--scope",
      "enterprise",
      "--format",
      "anthropic",
    ]);
    assert.equal(anthropic.code, 0, anthropic.stderr);
    const expected = toMessages(
      await supportBot.prompt.assemble(context as AssembleContext),
      { cache: true },
    );
    const output = parse(anthropic) as { system: unknown; tools: unknown };
    assert.deepEqual(
      output.system,
      JSON.parse(JSON.stringify(expected.system)),
    );
    assert.deepEqual(output.tools, JSON.parse(JSON.stringify(expected.tools)));
  });

  it("exits 1 with one stderr line when the assembly fails", async () => {
    const run = await rxprompt(["render", fixture("failing")]);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, "");
    assert.match(
      run.stderr,
      /^rxprompt: render of the global view failed: UNKNOWN_VARIABLE: .*cwd/,
    );
    assert.equal(run.stderr.trimEnd().split("\n").length, 1);
  });
});

describe("rxprompt: usage and config errors exit 2 with one line", () => {
  const cases: [string, string[], RegExp][] = [
    ["no command", [], /missing command; expected one of render, inspect/],
    ["an unknown command", ["draw", CODING], /unknown command "draw"/],
    [
      "an unknown option",
      ["render", CODING, "--colour"],
      /render has no option --colour/,
    ],
    [
      "a missing option value",
      ["render", CODING, "--scope"],
      /--scope of render needs a value/,
    ],
    [
      "an option as a value",
      ["render", CODING, "--scope", "--json"],
      /needs a value/,
    ],
    [
      "a repeated option",
      ["render", CODING, "--scope", "a", "--scope", "b"],
      /given twice/,
    ],
    ["a missing config", ["render"], /render takes CONFIG, got none/],
    [
      "an extra config",
      ["render", CODING, SUPPORT],
      /render takes CONFIG, got/,
    ],
    [
      "an unknown format",
      ["render", CODING, "--format", "xml"],
      /unknown --format "xml"/,
    ],
    [
      "a bad budget",
      ["check", CODING, "--max-tokens", "1e3"],
      /--max-tokens must be a whole number/,
    ],
    [
      "an unknown scope",
      ["render", CODING, "--scope", "nobody"],
      /has no scope named "nobody"; its scopes are coder, reviewer/,
    ],
    [
      "a missing file",
      ["render", "examples/nothing.ts"],
      /config examples\/nothing.ts not found/,
    ],
    [
      "a config that throws",
      ["render", fixture("throws")],
      /failed to load: config exploded$/,
    ],
    [
      "a config without a default export",
      ["inspect", fixture("no_default")],
      /has no default export; export default a SystemPrompt/,
    ],
    [
      "a default export of the wrong type",
      ["check", fixture("number_default")],
      /the default export is a number \(42\); export default a SystemPrompt/,
    ],
    [
      "a second config that throws",
      ["diff", CODING, fixture("throws")],
      /config exploded/,
    ],
    [
      "a config whose import never settles (a timer pending)",
      ["render", fixture("never_settles"), "--timeout", "0.5"],
      /^rxprompt: config tests\/cli\/fixtures\/never_settles\.ts did not finish loading within 0\.5 s .*--timeout SECONDS$/,
    ],
    [
      "a config whose default export never settles",
      ["check", fixture("pending_default"), "--timeout=0.5"],
      /^rxprompt: config tests\/cli\/fixtures\/pending_default\.ts did not finish loading within 0\.5 s/,
    ],
    [
      "a default export with a throwing then getter",
      ["render", fixture("then_getter")],
      /^rxprompt: config tests\/cli\/fixtures\/then_getter\.ts: .*then getter$/,
    ],
    [
      "a bad timeout",
      ["render", CODING, "--timeout", "0"],
      /--timeout must be a positive number of seconds/,
    ],
    [
      "a bad --fail-on",
      ["diff", CODING, CODING, "--fail-on", "some"],
      /unknown --fail-on "some"; expected cache-break .* or any/,
    ],
  ];
  for (const [what, args, pattern] of cases) {
    it(what, async () => {
      assertUsageError(await rxprompt(args), pattern);
    });
  }

  it("--help prints usage on stdout and exits 0", async () => {
    const run = await rxprompt(["check", "--help"]);
    assert.equal(run.code, 0);
    assert.match(
      run.stdout,
      /^rxprompt check CONFIG \[--scope NAME\] \[--max-tokens N\] \[--golden FILE\] \[--shares PARENT CHILD\] \[--provider [a-z|-]+\] \[--strict\] \[--update\] \[--json\]/,
    );
    assert.equal(run.stderr, "");
  });

  it("--version prints the version of deno.json", async () => {
    const { version } = JSON.parse(
      await Deno.readTextFile(repoPath("deno.json")),
    );
    const run = await rxprompt(["--version"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `rxprompt ${version}\n`);
  });

  it("names file:line of a config's syntax error", async () => {
    const dir = await Deno.makeTempDir();
    try {
      const file = `${dir}/broken.config.ts`;
      await Deno.writeTextFile(
        file,
        "export default {\n  prompt: 1,\n  oops here\n};\n",
      );
      assertUsageError(
        await rxprompt(["render", file]),
        new RegExp(
          `^rxprompt: config ${file} failed to load: syntax error at ` +
            `${file}:3:\\d+: Unexpected token`,
        ),
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

describe("rxprompt: a closed stdout", () => {
  it("ends the command quietly with exit 0 (render big | head)", async () => {
    const child = new Deno.Command(Deno.execPath(), {
      args: cliArgs(["render", fixture("big")]),
      cwd: repoPath(""),
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const reader = child.stdout.getReader();
    const first = await reader.read();
    assert.equal(first.done, false, "some output before the pipe closes");
    await reader.cancel();
    const stderr = await new Response(child.stderr).text();
    const { code } = await child.status;
    assert.equal(stderr, "", "no EPIPE, no stack trace");
    assert.equal(code, 0);
  });
});

describe("rxprompt inspect", () => {
  it("--json lists every section and tool with o200k_base token counts", async () => {
    const run = await rxprompt([
      "inspect",
      CODING,
      "--scope",
      "reviewer",
      "--json",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const table = parse(run) as {
      scope: string;
      sections: {
        name: string;
        layer: string;
        order: number;
        characters: number;
        tokens: number;
        breakpoint: boolean;
        registrar: string;
      }[];
      tools: { name: string; tokens: number }[];
      totals: Record<string, number>;
    };
    const assembly = await codingAssembly("reviewer");
    const prompt = renderPrompt(assembly);
    assert.equal(table.scope, "reviewer");
    assert.deepEqual(
      table.sections.map(({ name, order }) => ({ name, order })),
      assembly.sections.map(({ name, order }) => ({ name, order })),
    );
    assert.deepEqual(
      table.tools.map((tool) => tool.name),
      assembly.tools.map((tool) => tool.name),
    );
    for (const [index, tool] of table.tools.entries()) {
      assert.equal(
        tool.tokens,
        countTokens(JSON.stringify(assembly.tools[index])),
      );
    }
    const git = table.sections.find((section) => section.name === "git")!;
    assert.equal(
      git.registrar,
      "registry/coder/git",
      "provenance from explain(), along the scope chain",
    );
    const persona = table.sections.find((section) =>
      section.name === "deployment:persona"
    ) as { registrar: string; layer?: string };
    assert.deepEqual([persona.registrar, persona.layer], [
      "registry/reviewer",
      "scope",
    ]);
    const gitText =
      "You are on branch main. Commit in small steps with imperative messages; never push.";
    assert.equal(git.characters, gitText.length);
    assert.equal(git.tokens, countTokens(gitText));
    assert.equal(table.totals.characters, prompt.length);
    // SPEC 8.9's one accounting: the rows add up to the totals.
    const one = countAssemblyTokens(assembly, countTokens);
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    assert.equal(
      table.totals.promptTokens,
      sum(table.sections.map((row) => row.tokens)),
    );
    assert.equal(table.totals.promptTokens, sum(one.sections));
    assert.equal(
      table.totals.toolTokens,
      sum(table.tools.map((row) => row.tokens)),
    );
    assert.equal(table.totals.toolTokens, sum(one.tools));
    assert.equal(table.totals.tokens, one.total);
    assert.equal(
      table.totals.tokens,
      table.totals.promptTokens + table.totals.toolTokens,
    );
    assert.equal(table.totals.sections, assembly.sections.length);
  });

  it("shows the deferred tools apart, out of the totals", async () => {
    const run = await rxprompt([
      "inspect",
      fixture("deferred_tools"),
      "--json",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const table = parse(run) as {
      tools: { name: string }[];
      deferredTools: {
        name: string;
        registrar: string;
        tokens: number;
        active: boolean;
      }[];
      totals: { tools: number; toolTokens: number };
    };
    assert.deepEqual(table.tools.map((row) => row.name), ["read_file"]);
    assert.deepEqual(
      table.deferredTools.map(({ name, registrar, active }) => ({
        name,
        registrar,
        active,
      })),
      [
        { name: "crm_get_contact", registrar: "registry/crm", active: true },
        { name: "crm_log_call", registrar: "registry/crm", active: false },
      ],
    );
    assert.ok(table.deferredTools.every((row) => row.tokens > 0));
    assert.equal(table.totals.tools, 1);
    const text = await rxprompt(["inspect", fixture("deferred_tools")]);
    assert.match(
      text.stdout,
      /\nDeferred tools \(listed when the model finds them; not in the total\)\nname +registrar +tokens +active\ncrm_get_contact +registry\/crm +\d+ +yes\ncrm_log_call +registry\/crm +\d+ +no \(gated\)\n/,
    );
    // Without deferred tools, no key and no table.
    const plain = parse(await rxprompt(["inspect", CODING, "--json"]));
    assert.equal("deferredTools" in (plain as object), false);
  });

  it("rows add up to the totals, and show removed tools and the runtime context", async () => {
    const run = await rxprompt([
      "inspect",
      CODING,
      "--scope",
      "reviewer",
      "--json",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const table = parse(run) as {
      sections: { tokens: number }[];
      tools: { name: string; tokens: number }[];
      removedTools: { name: string; by: string }[];
      totals: { promptTokens: number; toolTokens: number; tokens: number };
    };
    const sum = (rows: { tokens: number }[]) =>
      rows.reduce((total, row) => total + row.tokens, 0);
    assert.equal(sum(table.sections), table.totals.promptTokens);
    assert.equal(sum(table.tools), table.totals.toolTokens);
    assert.equal(
      table.totals.promptTokens + table.totals.toolTokens,
      table.totals.tokens,
    );
    assert.deepEqual(table.removedTools, [
      { name: "edit_file", by: "listener" },
    ]);
    const text = await rxprompt(["inspect", CODING, "--scope", "reviewer"]);
    assert.match(
      text.stdout,
      /\nTools removed from the assembly\nname +removed by\nedit_file +an onAssemble listener\n/,
    );

    const dated = await rxprompt([
      "inspect",
      fixture("diff_tuesday"),
      "--json",
    ]);
    assert.equal(dated.code, 0, dated.stderr);
    const rows = (parse(dated) as {
      runtimeContext: { name: string; characters: number; tokens: number }[];
    }).runtimeContext;
    assert.deepEqual(
      rows.map(({ name, characters }) => ({ name, characters })),
      [
        { name: "date", characters: "Today is Tuesday.".length },
      ],
    );
    assert.equal(rows[0].tokens, countTokens("Today is Tuesday."));
    const plain = await rxprompt(["inspect", fixture("diff_tuesday")]);
    assert.match(
      plain.stdout,
      /\nRuntime context \(sent after the cached prefix; not in the total\)\norder +name +registrar +layer +chars +tokens\n +0 +date +registry +global +17 +\d+\n/,
    );
  });

  it("prints a table with totals", async () => {
    const run = await rxprompt(["inspect", SUPPORT]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      /^Sections of the global view\norder +name +registrar +layer +chars +tokens +breakpoint\n/,
    );
    assert.match(run.stdout, /\n {2}100 +policies:refunds +/);
    assert.match(
      run.stdout,
      /\nTools\nname +registrar +tokens +active\nlookup_account /,
    );
    assert.match(
      run.stdout,
      /\nTotal: 5 sections, \d+ characters, \d+ tokens \(system prompt\); 2 tools, \d+ tokens \(JSON\); \d+ tokens in all \(o200k_base\)\n/,
    );
  });

  it("exits 1 when the assembly fails", async () => {
    const run = await rxprompt(["inspect", fixture("failing")]);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /^rxprompt: inspect of the global view failed: UNKNOWN_VARIABLE/,
    );
  });
});

describe("rxprompt check", () => {
  it("--scope NAME (repeatable) checks only those scopes", async () => {
    const all = await rxprompt(["check", fixture("agent_only")]);
    assert.equal(all.code, 1, "the global view cannot render {{model}}");
    assert.match(all.stdout, /^error: the global view: /);
    const one = await rxprompt([
      "check",
      fixture("agent_only"),
      "--scope",
      "coder",
    ]);
    assert.equal(one.code, 0, one.stdout + one.stderr);
    assert.equal(
      one.stdout,
      'ok: scope "coder" assembled twice, without errors, deterministic\n',
    );
    const both = await rxprompt([
      "check",
      fixture("agent_only"),
      "--scope",
      "coder",
      "--scope",
      "reviewer",
      "--json",
    ]);
    assert.equal(both.code, 0, both.stderr);
    const report = parse(both) as { ok: boolean; views: { scope: string }[] };
    assert.equal(report.ok, true);
    assert.deepEqual(report.views.map((view) => view.scope), [
      "coder",
      "reviewer",
    ]);
    assertUsageError(
      await rxprompt(["check", fixture("agent_only"), "--scope", "nobody"]),
      /has no scope named "nobody"; its scopes are coder, reviewer/,
    );
  });

  it("passes the example configs: every scope assembled twice, the same", async () => {
    for (
      const config of [{ path: CODING, scopes: 2 }, {
        path: SUPPORT,
        scopes: 1,
      }]
    ) {
      const run = await rxprompt(["check", config.path, "--json"]);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      const result = parse(run) as {
        ok: boolean;
        views: { scope: string | null }[];
        findings: unknown[];
      };
      assert.equal(result.ok, true);
      assert.deepEqual(result.findings, []);
      assert.equal(result.views[0].scope, null);
      assert.equal(
        result.views.length,
        1 + config.scopes,
        "global and each named scope",
      );
    }
    const text = await rxprompt(["check", CODING]);
    assert.equal(
      text.stdout,
      "ok: the global view and 2 scopes assembled twice, without errors, deterministic\n",
    );
  });

  it("finds a non-deterministic provider and names the section", async () => {
    const run = await rxprompt(["check", fixture("nondeterministic")]);
    assert.equal(run.code, 1);
    assert.equal(
      run.stdout,
      'non-deterministic: scope "agent": two assemblies differ at section:request ' +
        "(system prompt offset 19); a provider returns a different value each " +
        "time, which breaks prompt caching\n",
    );
    const json = parse(
      await rxprompt(["check", fixture("nondeterministic"), "--json"]),
    );
    assert.deepEqual(
      (json.findings as { scope: string; kind: string }[]).map((
        { scope, kind },
      ) => ({ scope, kind })),
      [{ scope: "agent", kind: "nondeterministic" }],
    );
  });

  it("reports an assembly error as a finding", async () => {
    const run = await rxprompt(["check", fixture("failing"), "--json"]);
    assert.equal(run.code, 1);
    const { findings } = parse(run) as {
      findings: { kind: string; message: string }[];
    };
    assert.equal(findings.length, 1);
    assert.equal(findings[0].kind, "error");
    assert.match(findings[0].message, /^the global view: UNKNOWN_VARIABLE/);
  });

  it("--max-tokens budgets the system prompt plus the tools' JSON, exactly", async () => {
    const assembly = await codingAssembly("reviewer");
    // SPEC 8.9's one accounting: sections and tools one by one.
    const tokens = countAssemblyTokens(assembly, countTokens).total;
    const atBudget = await rxprompt([
      "check",
      CODING,
      "--max-tokens",
      String(tokens),
      "--json",
    ]);
    assert.equal(atBudget.code, 0, atBudget.stdout);
    const views = parse(atBudget).views as { scope: string; tokens: number }[];
    assert.equal(
      views.find((view) => view.scope === "reviewer")?.tokens,
      tokens,
    );

    const under = await rxprompt([
      "check",
      CODING,
      "--max-tokens",
      String(tokens - 1),
    ]);
    assert.equal(under.code, 1);
    assert.equal(
      under.stdout,
      `over budget: scope "reviewer": ${tokens} tokens (system prompt and ` +
        `tools' JSON) exceed --max-tokens ${tokens - 1}\n`,
      "only the reviewer, the larger view, is over",
    );
  });
});

describe("rxprompt diff", () => {
  it("exits 0 for identical assemblies", async () => {
    const run = await rxprompt(["diff", CODING, CODING]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      run.stdout,
      "identical: same tools, system prompt and runtime context\n",
    );
  });

  it("--json is the PromptDiff of the two assemblies; exit 1 when they differ", async () => {
    const run = await rxprompt([
      "diff",
      fixture("diff_main"),
      fixture("diff_fix"),
      "--json",
    ]);
    assert.equal(run.code, 1, run.stderr);
    const { branchConfig } = await import("./fixtures/branch_config.ts");
    const expected = diffAssemblies(
      await branchConfig("main").assemble(),
      await branchConfig("fix/cache").assemble(),
    );
    assert.deepEqual(parse(run), JSON.parse(JSON.stringify(expected)));
    assert.equal(expected.cache.brokenBy, "section:git");
  });

  it("prints a readable cache-break report", async () => {
    const run = await rxprompt([
      "diff",
      fixture("diff_main"),
      fixture("diff_fix"),
    ]);
    assert.equal(run.code, 1);
    assert.equal(
      run.stdout,
      [
        "cache: broken by section:git (tools stable, 19 of 29 system prompt characters unchanged; Anthropic cache markers still hit: 2 of 3 (tools, system block 1))",
        "sections: ~git",
        "variables: ~branch",
        "system prompt: first change at offset 19, in section git",
        '  - "Be brief.\\n\\nBranch: main."',
        '  + "Be brief.\\n\\nBranch: fix/cache."',
        "",
      ].join("\n"),
    );
  });

  it("exits 0 when only the runtime context changed (the cache is intact)", async () => {
    const run = await rxprompt([
      "diff",
      fixture("diff_main"),
      fixture("diff_tuesday"),
    ]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.equal(
      run.stdout,
      [
        "cache: intact (tools and system prompt unchanged; the runtime context is not cached)",
        "runtime context: ~date",
        "",
      ].join("\n"),
    );
    const json = await rxprompt([
      "diff",
      fixture("diff_main"),
      fixture("diff_tuesday"),
      "--json",
    ]);
    assert.equal(json.code, 0);
    const diff = parse(json) as {
      identical: boolean;
      runtimeContext: unknown;
    };
    assert.equal(diff.identical, false);
    assert.deepEqual(diff.runtimeContext, {
      added: [],
      removed: [],
      changed: ["date"],
    });
  });

  it("--fail-on any exits 1 on any difference; cache-break only when the cache breaks", async () => {
    const context = [fixture("diff_main"), fixture("diff_tuesday")];
    const branch = [fixture("diff_main"), fixture("diff_fix")];
    const code = async (args: string[]) => (await rxprompt(args)).code;
    assert.equal(await code(["diff", ...context, "--fail-on", "any"]), 1);
    assert.equal(await code(["diff", ...context, "--fail-on=cache-break"]), 0);
    assert.equal(
      await code(["diff", ...branch, "--fail-on", "cache-break"]),
      1,
    );
    assert.equal(await code(["diff", CODING, CODING, "--fail-on", "any"]), 0);
  });
});

describe("rxprompt: colour", () => {
  /** Runs the command on a pseudo-terminal (util-linux `script`). */
  async function onTerminal(args: string[], env: Record<string, string>) {
    const command = [
      Deno.execPath(),
      "run",
      "-A",
      "--quiet",
      repoPath("cli/main.ts"),
      ...args,
    ]
      .map((word) => `'${word}'`).join(" ");
    const { stdout } = await new Deno.Command("script", {
      args: ["-qec", command, "/dev/null"],
      env: { ...passed(), TERM: "xterm", ...env },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    return new TextDecoder().decode(stdout);
  }

  /** The environment deno needs (its cache), without NO_COLOR. */
  function passed(): Record<string, string> {
    const names = ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME"];
    return Object.fromEntries(
      names.flatMap((name) => {
        const value = Deno.env.get(name);
        return value === undefined ? [] : [[name, value]];
      }),
    );
  }

  const terminal = (() => {
    try {
      return new Deno.Command("script", { args: ["--version"] }).outputSync()
        .success;
    } catch {
      return false;
    }
  })();

  it("is never used when output is not a terminal", async () => {
    for (
      const args of [["check", CODING], [
        "diff",
        fixture("diff_main"),
        fixture("diff_fix"),
      ], ["inspect", CODING]]
    ) {
      const run = await rxprompt(args, {});
      assert.equal(hasEscapes(run.stdout + run.stderr), false, args.join(" "));
    }
  });

  it("is used on a terminal, and never with NO_COLOR", {
    skip: !terminal && "no util-linux script",
  }, async () => {
    const args = ["diff", fixture("diff_main"), fixture("diff_fix")];
    const coloured = await onTerminal(args, {});
    assert.ok(
      hasEscapes(coloured),
      `colour on a terminal: ${JSON.stringify(coloured)}`,
    );
    const plain = await onTerminal(args, { NO_COLOR: "1" });
    assert.match(plain, /cache: broken by section:git/);
    assert.equal(hasEscapes(plain), false, JSON.stringify(plain));
    const check = await onTerminal(["check", CODING], { NO_COLOR: "1" });
    assert.match(check, /ok: the global view/);
    assert.equal(hasEscapes(check), false, "the progress line has no escapes");
  });
});
