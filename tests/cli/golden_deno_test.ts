/**
 * `rxprompt check --golden FILE [--update]` and `--shares PARENT CHILD`
 * (SPEC 9.5) as a subprocess: the manifest written by rename, a realistic
 * edit failing with its contributor, and every bad manifest one line on
 * stderr with exit 2.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { repoPath, rxprompt } from "./cli_process.ts";
import {
  formatGoldenManifest,
  type GoldenManifest,
} from "../../adapters/cache/mod.ts";

/** A config of tests/cache/contract/contract_fixture.ts with `edits`, in `dir`. */
async function config(dir: string, edits: object = {}): Promise<string> {
  const path = `${dir}/contract_${crypto.randomUUID()}.ts`;
  const fixture = new URL(
    `file://${repoPath("tests/cache/contract/contract_fixture.ts")}`,
  );
  await Deno.writeTextFile(
    path,
    `import { contractConfig } from ${JSON.stringify(fixture.href)};\n` +
      `const { prompt, scopes } = contractConfig(${JSON.stringify(edits)});\n` +
      `export default { prompt, scopes: Object.fromEntries(scopes.map((s) => [s, s])) };\n`,
  );
  return path;
}

/** Exit 2 with one line on stderr, nothing on stdout, no stack trace. */
function oneLine(
  run: { code: number; stdout: string; stderr: string },
  pattern: RegExp,
): void {
  assert.equal(run.code, 2, run.stderr);
  assert.equal(run.stdout, "");
  const lines = run.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0], pattern);
  assert.doesNotMatch(run.stderr, /\n\s+at /);
}

describe("rxprompt check --golden", () => {
  it("--update writes the manifest by rename; it then holds, and an edit fails naming its contributor", async () => {
    const dir = await Deno.makeTempDir();
    try {
      const golden = `${dir}/golden.json`;
      const written = await rxprompt([
        "check",
        await config(dir),
        "--golden",
        golden,
        "--update",
      ]);
      assert.equal(written.code, 0, written.stderr);
      assert.match(written.stdout, /golden manifest .* written \(3 views\)/);
      const names = [...Deno.readDirSync(dir)].map((entry) => entry.name);
      assert.deepEqual(names.filter((name) => name.endsWith(".tmp")), []);
      assert.match(
        await Deno.readTextFile(golden),
        /^\{\n {2}"format": "rxprompt-golden-manifest",\n {2}"version": 1,/,
      );
      const holds = await rxprompt([
        "check",
        await config(dir, { memory: "edited", date: "2026-12-06" }),
        "--golden",
        golden,
      ]);
      assert.equal(holds.code, 0, holds.stdout + holds.stderr);
      assert.match(holds.stdout, /golden manifest .* holds/);
      const edited = await rxprompt([
        "check",
        await config(dir, { reviewerPersona: "You review, strictly." }),
        "--golden",
        golden,
        "--json",
      ]);
      assert.equal(edited.code, 1, edited.stderr);
      const report = JSON.parse(edited.stdout);
      const [finding] = report.findings.filter((finding: { kind: string }) =>
        finding.kind === "golden"
      );
      assert.equal(finding.scope, "reviewer");
      assert.equal(finding.entry, "section:deployment:persona");
      assert.equal(finding.contributor, "registry/reviewer");
      assert.ok(finding.rewriteTokens > 0);
      // A section's change: a running conversation tells it inline.
      assert.equal(finding.inline, true);
      // --update --scope rewrites that view and keeps the others.
      const reviewed = await config(dir, {
        reviewerPersona: "You review, strictly.",
      });
      const one = await rxprompt([
        "check",
        reviewed,
        "--golden",
        golden,
        "--update",
        "--scope",
        "reviewer",
      ]);
      assert.equal(one.code, 0, one.stderr);
      assert.match(one.stdout, /written \(3 views\)/);
      const after = await rxprompt(["check", reviewed, "--golden", golden]);
      assert.equal(after.code, 0, after.stdout + after.stderr);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });

  it("a missing, truncated, hand-edited or other-version manifest is one line and exit 2", async () => {
    const dir = await Deno.makeTempDir();
    try {
      const path = await config(dir);
      const golden = `${dir}/golden.json`;
      await rxprompt(["check", path, "--golden", golden, "--update"]);
      const text = await Deno.readTextFile(golden);
      oneLine(
        await rxprompt(["check", path, "--golden", `${dir}/none.json`]),
        /golden manifest .*none\.json not found; write it with .* --update$/,
      );
      const cases: [string, RegExp][] = [
        [text.slice(0, text.length / 2), /INVALID_MANIFEST: .*not valid JSON/],
        [
          text.replace('"name":"shell"', '"name":"bash"'),
          /MANIFEST_CHECKSUM_MISMATCH: .*edited/,
        ],
        [
          text.replace('"version": 1', '"version": 3'),
          /UNSUPPORTED_MANIFEST_VERSION: .*version 3/,
        ],
      ];
      // Edited, its checksum recomputed: a scope twice, scopes out of
      // order, a tier whose tokens are not its entries'.
      const written: GoldenManifest = JSON.parse(text);
      const [global, coder, reviewer] = written.scopes;
      const rewritten = (scopes: GoldenManifest["scopes"]) =>
        formatGoldenManifest({ ...written, scopes });
      cases.push(
        [
          rewritten([global, coder, { ...coder, tiers: [] }, reviewer]),
          /INVALID_MANIFEST: .*scope "coder" twice.*--update/,
        ],
        [
          rewritten([global, reviewer, coder]),
          /INVALID_MANIFEST: .*out of order.*--update/,
        ],
        [
          rewritten([global, {
            ...coder,
            tiers: [{ ...coder.tiers[0], tokens: 1 }, ...coder.tiers.slice(1)],
          }, reviewer]),
          /INVALID_MANIFEST: .*tiers\[0\]\.tokens is 1, but its entries' tokens add up to \d+/,
        ],
      );
      for (const [content, pattern] of cases) {
        await Deno.writeTextFile(`${dir}/bad.json`, content);
        oneLine(
          await rxprompt(["check", path, "--golden", `${dir}/bad.json`]),
          pattern,
        );
      }
      // A config whose views differ between two assemblies: no manifest.
      const unsteady = await rxprompt([
        "check",
        repoPath("tests/cli/fixtures/nondeterministic.ts"),
        "--golden",
        `${dir}/unsteady.json`,
        "--update",
      ]);
      assert.equal(unsteady.code, 1, unsteady.stderr);
      assert.match(unsteady.stdout, /non-deterministic/);
      await assert.rejects(Deno.stat(`${dir}/unsteady.json`));
      // --update into a folder that does not exist: nothing written.
      oneLine(
        await rxprompt([
          "check",
          path,
          "--golden",
          `${dir}/missing/golden.json`,
          "--update",
        ]),
        /could not be written/,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });

  it("--shares prints what the child shares; a child that shares nothing fails", async () => {
    const dir = await Deno.makeTempDir();
    try {
      const shares = await rxprompt([
        "check",
        await config(dir),
        "--shares",
        "coder",
        "reviewer",
      ]);
      assert.equal(shares.code, 0, shares.stderr);
      assert.match(
        shares.stdout,
        /^shares: scope "reviewer"'s first request reads scope "coder"'s cached prefix: anthropic \d+ tokens.*first differ at tool:submit_review of registry\/reviewer/m,
      );
      const nothing = `${dir}/nothing.ts`;
      await Deno.writeTextFile(
        nothing,
        `import { SystemPrompt } from ${
          JSON.stringify(`file://${repoPath("mod.ts")}`)
        };\n` +
          `const prompt = new SystemPrompt({ includeHarnessIdentity: false });\n` +
          `prompt.scope("a").section({ name: "p", order: 0, text: "A." });\n` +
          `prompt.scope("b", { label: "b" }).section({ name: "p", order: 0, text: "B." });\n` +
          `export default { prompt, scopes: { a: "a", b: "b" } };\n`,
      );
      const none = await rxprompt(["check", nothing, "--shares", "a", "b"]);
      assert.equal(none.code, 1, none.stderr);
      assert.match(
        none.stdout,
        /^shares: .*section:p of registry\/b.*shares nothing$/m,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});
