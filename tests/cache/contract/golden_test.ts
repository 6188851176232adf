/**
 * SPEC 9.5, 9.8: golden manifests held to realistic edits on a config with
 * several plugins and scopes, their file format (checksum, version, one
 * line per entry), and the bad manifests a CI run can meet.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  compareGoldenManifests,
  formatGoldenManifest,
  type GoldenManifest,
  goldenManifest,
  parseGoldenManifest,
} from "../../../adapters/cache/mod.ts";
import { SystemPrompt } from "../../../mod.ts";
import { rejects } from "../../assertions.ts";
import {
  contractConfig,
  contractManifest,
  countTokens,
} from "./contract_fixture.ts";

/** The views that differ, each as [scope, entry, contributor, change]. */
async function failures(
  edits: Parameters<typeof contractManifest>[0],
): Promise<[string | null, string | undefined, string | undefined, string][]> {
  const differences = compareGoldenManifests(
    await contractManifest(),
    await contractManifest(edits),
  );
  return differences.map((difference) => [
    difference.scope,
    difference.entry,
    difference.contributor,
    difference.change,
  ]);
}

describe("goldenManifest held to realistic edits", () => {
  it("an edited stable section fails in every view, naming its plugin", async () => {
    assert.deepEqual(
      await failures({ filesGuidance: "Read a file before you edit it." }),
      [null, "coder", "reviewer"].map((scope) => [
        scope,
        "section:tools:files",
        "registry/files",
        "changed",
      ]),
    );
  });

  it("a changed tool description fails, naming the tool's plugin, with the tokens written again", async () => {
    const golden = await contractManifest();
    const current = await contractManifest({
      shellDescription: "Run a shell command (updated 2026-12-05).",
    });
    const [global, coder] = compareGoldenManifests(golden, current);
    assert.equal(global.entry, "tool:shell");
    assert.equal(global.contributor, "registry/shell");
    // From tool:shell on: every later entry of the view's cached tiers.
    const view = current.scopes[0];
    const entries = view.tiers.flatMap((tier) => tier.entries);
    const at = entries.findIndex((entry) => entry.name === "shell");
    assert.equal(
      global.rewriteTokens,
      entries.slice(at).reduce((sum, entry) => sum + entry.tokens, 0),
    );
    assert.ok(global.rewriteTokens < view.tokens);
    assert.match(
      coder.message,
      /^scope "coder": tool:shell \(stable tier\) of registry\/shell changed .*; every later request writes \d+ tokens of its cached tiers again$/,
    );
  });

  it("a reordered tool list fails as a move, naming the tool that moved", async () => {
    assert.deepEqual(
      await failures({ reorderTools: true }),
      [null, "coder", "reviewer"].map((scope) => [
        scope,
        "tool:write_file",
        "registry/files",
        "moved",
      ]),
    );
  });

  it("a changed agent-tier persona fails in its scope only", async () => {
    const [difference, ...rest] = compareGoldenManifests(
      await contractManifest(),
      await contractManifest({ reviewerPersona: "You review, strictly." }),
    );
    assert.deepEqual(rest, []);
    assert.equal(difference.scope, "reviewer");
    assert.equal(difference.entry, "section:deployment:persona");
    assert.equal(difference.contributor, "registry/reviewer");
    assert.match(difference.message, /\(agent tier\)/);
  });

  it("an edited volatile section and a runtime-context change pass", async () => {
    assert.deepEqual(await failures({ memory: "the user prefers tabs" }), []);
    assert.deepEqual(await failures({ date: "2026-12-06" }), []);
    const manifest = formatGoldenManifest(await contractManifest());
    assert.equal(manifest.includes('"memory"'), false);
    assert.equal(manifest.includes('"mcp_search"'), false);
  });

  it("the same registrations in another load order give a byte-identical manifest", async () => {
    assert.equal(
      formatGoldenManifest(await contractManifest({ reverse: true })),
      formatGoldenManifest(await contractManifest()),
    );
  });

  it("is the same bytes on every runtime: its checksum is pinned", async () => {
    // The same on Deno, Node and Bun (this file runs on all three): SHA-256
    // in plain JS over the code-unit-ordered manifest.
    assert.match(
      formatGoldenManifest(await contractManifest()),
      /"checksum": "sha256:5ecc4b9643fe0161236c8505298c109692b8fa95f24a29b856fb2f9ca8761ff1"/,
    );
  });

  it("names a scope added or no longer checked, and compares only the scopes asked", async () => {
    const all = await contractManifest();
    const without: GoldenManifest = {
      ...all,
      scopes: all.scopes.filter((scope) => scope.scope !== "reviewer"),
    };
    const [added] = compareGoldenManifests(without, all);
    assert.equal(added.change, "scope added");
    assert.equal(added.rewriteTokens, all.scopes[2].tokens);
    assert.match(added.message, /^scope "reviewer" is not in the golden/);
    assert.equal(
      compareGoldenManifests(all, without)[0].change,
      "scope removed",
    );
    assert.deepEqual(
      compareGoldenManifests(without, all, { scopes: ["coder", null] }),
      [],
    );
  });

  it("rejects a scope listed twice, a missing counter and a non-explanation", async () => {
    const { prompt } = contractConfig();
    const explanation = await prompt.explain();
    await prompt.dispose();
    assert.throws(
      () =>
        goldenManifest([{ scope: null, explanation }, {
          scope: null,
          explanation,
        }], { countTokens }),
      rejects("INVALID_CONFIG", "the global view is listed twice"),
    );
    assert.throws(
      () => goldenManifest([], {} as never),
      rejects("INVALID_CONFIG", "countTokens"),
    );
    assert.throws(
      () =>
        goldenManifest([{ scope: "a", explanation: {} as never }], {
          countTokens,
        }),
      rejects("INVALID_ASSEMBLY", 'scope "a"', "explain"),
    );
  });

  it("compareGoldenManifests rejects what is not a manifest", async () => {
    const manifest = await contractManifest();
    assert.throws(
      () => compareGoldenManifests(manifest, {} as never),
      rejects("INVALID_MANIFEST", "current manifest"),
    );
    assert.throws(
      () => compareGoldenManifests(null as never, manifest),
      rejects("INVALID_MANIFEST", "golden manifest"),
    );
  });

  it("compareGoldenManifests rejects a malformed manifest with INVALID_MANIFEST, never a raw error", async () => {
    const manifest = await contractManifest();
    const [global] = manifest.scopes;
    const throwing = {
      ...manifest,
      get scopes(): never {
        throw new Error("getter");
      },
    };
    const cases: [unknown, string][] = [
      [{ ...manifest, scopes: [null] }, "scopes[0] is null"],
      [
        { ...manifest, scopes: [{ ...global, tiers: 5 }] },
        "scopes[0].tiers is 5",
      ],
      [
        {
          ...manifest,
          scopes: [{
            ...global,
            tiers: [{ ...global.tiers[0], entries: [7] }],
          }],
        },
        "scopes[0].tiers[0].entries[0] is 7",
      ],
      [throwing, "could not be read: Error: getter"],
      [
        new Proxy(manifest, {
          get() {
            throw new TypeError("revoked");
          },
        }),
        "could not be read",
      ],
      [{ ...manifest, scopes: [global, global] }, "twice"],
    ];
    for (const [bad, part] of cases) {
      assert.throws(
        () => compareGoldenManifests(manifest, bad as GoldenManifest),
        rejects("INVALID_MANIFEST", "the current manifest", part),
      );
      assert.throws(
        () => compareGoldenManifests(bad as GoldenManifest, manifest),
        rejects("INVALID_MANIFEST", "the golden manifest", part),
      );
    }
  });

  it("a counter answering NaN is refused, and a throwing one carries a code", async () => {
    const { prompt } = contractConfig();
    const explanation = await prompt.explain();
    await prompt.dispose();
    for (const [answer, shown] of [[NaN, "NaN"], [-1, "-1"], [1.5, "1.5"]]) {
      assert.throws(
        () =>
          goldenManifest([{ scope: null, explanation }], {
            countTokens: () => answer as number,
          }),
        rejects("PROVIDER_FAILED", `returned ${shown}`, "countTokens", "tool:"),
      );
    }
    const failure = new Error("tokenizer gone");
    assert.throws(
      () =>
        goldenManifest([{ scope: "coder", explanation }], {
          countTokens: () => {
            throw failure;
          },
        }),
      (error: unknown) => {
        rejects(
          "PROVIDER_FAILED",
          "countTokens",
          'scope "coder"',
          "tokenizer gone",
        )(
          error,
        );
        assert.equal((error as Error).cause, failure);
        return true;
      },
    );
  });

  it("names a listener's entry as the listener's", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.onAssemble(async (_assembly, _context, next) => {
      const assembly = await next();
      return {
        ...assembly,
        sections: [...assembly.sections, {
          name: "added",
          order: 1,
          text: "Hi.",
        }],
      };
    });
    const manifest = goldenManifest(
      [{ scope: null, explanation: await prompt.explain() }],
      { countTokens },
    );
    await prompt.dispose();
    assert.equal(manifest.scopes[0].tiers[0].entries[0].registrar, "listener");
  });
});

describe("the golden manifest file", () => {
  it("round-trips, one line per entry, with its checksum", async () => {
    const manifest = await contractManifest();
    const text = formatGoldenManifest(manifest);
    assert.deepEqual(parseGoldenManifest(text), manifest);
    assert.ok(text.endsWith("}\n"));
    assert.match(text, /\n {2}"checksum": "sha256:[0-9a-f]{64}",\n/);
    const lines = text.split("\n");
    const entryLines = lines.filter((line) => line.includes('"sha256":'));
    assert.equal(
      entryLines.length,
      manifest.scopes.flatMap((scope) => scope.tiers)
        .flatMap((tier) => tier.entries).length,
    );
    // An edit is a one-line diff (and the checksum's line).
    const edited = formatGoldenManifest(
      await contractManifest({ reviewerPersona: "You review, strictly." }),
    ).split("\n");
    const changed = lines.flatMap((line, index) =>
      line === edited[index] ? [] : [index]
    );
    assert.equal(edited.length, lines.length);
    assert.ok(changed.length <= 6, `changed lines: ${changed}`);
  });

  it("a truncated manifest is INVALID_MANIFEST", async () => {
    const text = formatGoldenManifest(await contractManifest());
    for (const cut of [0, 10, text.length / 2, text.length - 3]) {
      assert.throws(
        () => parseGoldenManifest(text.slice(0, Math.floor(cut))),
        rejects("INVALID_MANIFEST", "not valid JSON", "--update"),
      );
    }
  });

  it("a hand-edited manifest is MANIFEST_CHECKSUM_MISMATCH", async () => {
    const text = formatGoldenManifest(await contractManifest());
    const edits = [
      text.replace('"tokens":24', '"tokens":23'),
      text.replace('"name":"shell"', '"name":"shell2"'),
      text.replace(/"sha256":"a/, '"sha256":"b'),
    ];
    for (const edited of edits) {
      assert.notEqual(edited, text);
      assert.throws(
        () => parseGoldenManifest(edited),
        rejects("MANIFEST_CHECKSUM_MISMATCH", "edited", "--update"),
      );
    }
  });

  it("a manifest whose checksum was recomputed over a broken content is INVALID_MANIFEST", async () => {
    const manifest = await contractManifest();
    const [global, coder, reviewer] = manifest.scopes;
    const tier = coder.tiers[0];
    const cases: [GoldenManifest["scopes"], string][] = [
      [[global, coder, coder, reviewer], 'scope "coder" twice'],
      [[global, reviewer, coder], "order"],
      [[coder, global, reviewer], "order"],
      [
        [global, {
          ...coder,
          tiers: [
            { ...tier, tokens: tier.tokens + 1 },
            ...coder.tiers.slice(1),
          ],
        }, reviewer],
        "scopes[1].tiers[0].tokens",
      ],
      [
        [global, { ...coder, tokens: coder.tokens - 1 }, reviewer],
        "scopes[1].tokens",
      ],
      [
        [global, { ...coder, tiers: [...coder.tiers].reverse() }, reviewer],
        "scopes[1].tiers",
      ],
      [
        [global, {
          ...coder,
          tokens: coder.tokens + tier.entries[0].tokens,
          tiers: [{
            ...tier,
            tokens: tier.tokens + tier.entries[0].tokens,
            entries: [tier.entries[0], ...tier.entries],
          }, ...coder.tiers.slice(1)],
        }, reviewer],
        "twice",
      ],
    ];
    for (const [scopes, part] of cases) {
      // formatGoldenManifest writes the checksum of what it is given.
      const text = formatGoldenManifest({ ...manifest, scopes });
      assert.throws(
        () => parseGoldenManifest(text),
        rejects("INVALID_MANIFEST", part, "--update"),
      );
    }
  });

  it("another version or format is UNSUPPORTED_MANIFEST_VERSION", () => {
    const text = formatGoldenManifest({
      format: "rxprompt-golden-manifest",
      version: 1,
      scopes: [],
    });
    assert.throws(
      () => parseGoldenManifest(text.replace('"version": 1', '"version": 3')),
      rejects("UNSUPPORTED_MANIFEST_VERSION", "version 3", "versions 1 to 2"),
    );
    assert.throws(
      () =>
        parseGoldenManifest(
          text.replace("rxprompt-golden-manifest", "other-manifest"),
        ),
      rejects("UNSUPPORTED_MANIFEST_VERSION", '"other-manifest"'),
    );
  });

  it("a manifest of the wrong shape is INVALID_MANIFEST naming the field", () => {
    const cases: [unknown, string][] = [
      [[], "an object"],
      [{ version: 1 }, 'no "format"'],
      [
        {
          format: "rxprompt-golden-manifest",
          version: 1,
          checksum: "sha256:" + "0".repeat(64),
          scopes: [{ scope: 3, tokens: 0, tiers: [] }],
        },
        "scopes[0].scope",
      ],
      [
        {
          format: "rxprompt-golden-manifest",
          version: 1,
          checksum: "sha256:" + "0".repeat(64),
          scopes: [{
            scope: null,
            tokens: 0,
            tiers: [{
              part: "tools",
              tier: "volatile",
              tokens: 0,
              entries: [],
            }],
          }],
        },
        "scopes[0].tiers[0].tier",
      ],
      [
        {
          format: "rxprompt-golden-manifest",
          version: 1,
          checksum: "md5",
          scopes: [],
        },
        '"checksum"',
      ],
      [
        {
          format: "rxprompt-golden-manifest",
          version: 1,
          checksum: "sha256:" + "0".repeat(64),
          scopes: [],
          extra: true,
        },
        'unknown key "extra"',
      ],
    ];
    for (const [value, part] of cases) {
      assert.throws(
        () => parseGoldenManifest(JSON.stringify(value)),
        rejects("INVALID_MANIFEST", part),
      );
    }
    assert.throws(
      () => parseGoldenManifest(3 as never),
      rejects("INVALID_MANIFEST", "text"),
    );
  });
});
