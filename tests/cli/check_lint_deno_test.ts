/** `rxprompt check` and the cache lint (SPEC 8.7): findings, exit codes. */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { rxprompt } from "./cli_process.ts";

const fixture = (name: string) => `tests/cli/fixtures/${name}.ts`;

describe("rxprompt check: cache lint", () => {
  it("fails on a tool name every adapter rejects (INVALID_TOOL_NAME)", async () => {
    const run = await rxprompt(["check", fixture("invalid_tool_name")]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(
      run.stdout,
      /^INVALID_TOOL_NAME: the global view: tool:files\.read: Tool "files\.read" does not match/,
    );
    const json = await rxprompt([
      "check",
      fixture("invalid_tool_name"),
      "--json",
    ]);
    assert.equal(json.code, 1);
    const result = JSON.parse(json.stdout) as {
      ok: boolean;
      findings: Record<string, unknown>[];
    };
    assert.equal(result.ok, false);
    assert.deepEqual(
      result.findings.map(({ kind, code, severity, entry, scope }) => ({
        kind,
        code,
        severity,
        entry,
        scope,
      })),
      [{
        kind: "cache",
        code: "INVALID_TOOL_NAME",
        severity: "error",
        entry: "tool:files.read",
        scope: null,
      }],
    );
  });

  it("a volatile section is left out of the comparison; its warning exits 0, or 1 with --strict", async () => {
    const run = await rxprompt(["check", fixture("volatile_section")]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const lines = run.stdout.trimEnd().split("\n");
    assert.equal(lines.length, 2, run.stdout);
    assert.match(
      lines[0],
      /^VOLATILE_IN_SYSTEM: the global view: section:memory: Section "memory" is volatile/,
    );
    assert.equal(
      lines[1],
      "ok: the global view assembled twice, without errors, deterministic; " +
        "1 cache warning",
    );
    const strict = await rxprompt([
      "check",
      fixture("volatile_section"),
      "--strict",
      "--json",
    ]);
    assert.equal(strict.code, 1);
    const result = JSON.parse(strict.stdout) as {
      ok: boolean;
      findings: { kind: string; code?: string }[];
    };
    assert.equal(result.ok, false);
    assert.deepEqual(
      result.findings.map(({ kind, code }) => `${kind} ${code}`),
      ["cache VOLATILE_IN_SYSTEM"],
    );
  });

  it("--strict is check's flag only, and takes no value", async () => {
    const render = await rxprompt([
      "render",
      fixture("volatile_section"),
      "--strict",
    ]);
    assert.equal(render.code, 2);
    assert.match(render.stderr, /render has no option --strict/);
    const valued = await rxprompt([
      "check",
      fixture("volatile_section"),
      "--strict=yes",
    ]);
    assert.equal(valued.code, 2);
    assert.match(valued.stderr, /--strict of check takes no value/);
  });
});
