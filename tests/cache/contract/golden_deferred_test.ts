/**
 * Golden manifests with deferred tools (SPEC §10.3, 9.5): the deferred
 * tools listed apart from the cached tiers (format version 2), version 1
 * written and read as before when there are none.
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
import {
  type Stability,
  SystemPrompt,
  type ToolsOptions,
} from "../../../mod.ts";
import { rejects } from "../../assertions.ts";
import { tool } from "../../fixtures.ts";

const countTokens = (text: string) => Math.ceil(text.length / 4);

/** The global view's manifest of a registry with a crm plugin deferred or not. */
async function manifestOf(
  crm: ToolsOptions | undefined,
  { description = "Find a contact.", stability = "stable" as Stability } = {},
): Promise<GoldenManifest> {
  const prompt = new SystemPrompt({ includeHarnessIdentity: false });
  prompt.section({ name: "rules", order: 10, text: "Be brief." });
  prompt.fork({ label: "files" }).tools(() => ({
    schemas: [tool("read_file", "Read a file.")],
  }));
  prompt.fork({ label: "crm" }).tools(() => ({
    schemas: [tool("crm_find", description), tool("crm_log", "Log a call.")],
  }), { stability, ...crm });
  const manifest = goldenManifest([{
    scope: null,
    explanation: await prompt.explain(),
  }], { countTokens });
  await prompt.dispose();
  return manifest;
}

describe("golden manifests with deferred tools", () => {
  it("lists a view's deferred tools apart, in canonical order, outside its tokens: version 2", async () => {
    const manifest = await manifestOf({ defer: true });
    assert.equal(manifest.version, 2);
    const [view] = manifest.scopes;
    assert.deepEqual(
      view.tiers.map((tier) => tier.entries.map((entry) => entry.name)),
      [["read_file"], ["rules"]],
    );
    assert.deepEqual(
      view.deferred?.map(({ registrar, name }) => [registrar, name]),
      [["registry/crm", "crm_find"], ["registry/crm", "crm_log"]],
    );
    assert.equal(
      view.tokens,
      view.tiers.reduce((sum, tier) => sum + tier.tokens, 0),
    );
    assert.equal(
      view.deferred?.[0].tokens,
      countTokens(JSON.stringify(tool("crm_find", "Find a contact."))),
    );
  });

  it("lists volatile deferred tools too (they are compared nowhere)", async () => {
    const manifest = await manifestOf({ defer: true }, {
      stability: "volatile",
    });
    assert.deepEqual(
      manifest.scopes[0].deferred?.map((entry) => entry.name),
      ["crm_find", "crm_log"],
    );
  });

  it("without deferred tools it is version 1 with no deferred key, as before", async () => {
    const manifest = await manifestOf(undefined);
    assert.equal(manifest.version, 1);
    assert.equal("deferred" in manifest.scopes[0], false);
    const text = formatGoldenManifest(manifest);
    assert.match(text, /"version": 1,/);
    assert.equal(text.includes("deferred"), false);
    assert.deepEqual(parseGoldenManifest(text), manifest);
  });

  it("formats and parses version 2 back, one line per deferred tool, checksum over them", async () => {
    const manifest = await manifestOf({ defer: true });
    const text = formatGoldenManifest(manifest);
    assert.deepEqual(parseGoldenManifest(text), manifest);
    assert.match(
      text,
      /\n {6}"deferred": \[\n {8}\{"registrar":"registry\/crm","name":"crm_find",/,
    );
    assert.throws(
      () => parseGoldenManifest(text.replace('"crm_log"', '"crm_call"')),
      rejects("MANIFEST_CHECKSUM_MISMATCH"),
    );
  });

  it("reads version 1 without deferred, and refuses deferred in version 1 or a version 2 without any", async () => {
    const v2 = formatGoldenManifest(await manifestOf({ defer: true }));
    assert.throws(
      () => parseGoldenManifest(v2.replace('"version": 2', '"version": 1')),
      rejects("INVALID_MANIFEST", 'unknown key "deferred"'),
    );
    const v1 = await manifestOf(undefined);
    const relabelled = formatGoldenManifest({ ...v1, version: 2 });
    assert.throws(
      () => parseGoldenManifest(relabelled),
      rejects("INVALID_MANIFEST", "version 2", "deferred tools"),
    );
  });

  it("a change among the deferred tools is no difference of the contract", async () => {
    assert.deepEqual(
      compareGoldenManifests(
        await manifestOf({ defer: true }),
        await manifestOf({ defer: true }, { description: "Find anyone." }),
      ),
      [],
    );
  });

  it("a tool leaving the tiers for the deferred tools, or back, is a difference saying so", async () => {
    const listed = await manifestOf(undefined);
    const deferred = await manifestOf({ defer: true });
    const [gone] = compareGoldenManifests(listed, deferred);
    assert.equal(gone.change, "removed");
    assert.equal(gone.entry, "tool:crm_find");
    assert.match(gone.message, /is now deferred/);
    const [back] = compareGoldenManifests(deferred, listed);
    assert.equal(back.change, "added");
    assert.equal(back.entry, "tool:crm_find");
    assert.match(back.message, /was deferred and is now listed/);
    assert.ok(back.rewriteTokens > 0);
  });

  it("a name deferred twice, or both listed and deferred, is INVALID_MANIFEST", async () => {
    const manifest = await manifestOf({ defer: true });
    const [view] = manifest.scopes;
    const twice = {
      ...manifest,
      scopes: [{ ...view, deferred: [...view.deferred!, view.deferred![0]] }],
    };
    assert.throws(
      () => parseGoldenManifest(formatGoldenManifest(twice)),
      rejects("INVALID_MANIFEST", "deferred[2]", "tool:crm_find"),
    );
    const listedToo = {
      ...manifest,
      scopes: [{
        ...view,
        deferred: [{ ...view.deferred![0], name: "read_file" }],
      }],
    };
    assert.throws(
      () => compareGoldenManifests(listedToo, manifest),
      rejects("INVALID_MANIFEST", "golden", "tool:read_file"),
    );
  });
});
