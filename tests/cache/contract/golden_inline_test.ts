/**
 * SPEC 9.5 with 10.1 (issue 46): a golden difference in a section (changed,
 * added, removed) is one a running conversation tells inline, after its
 * history, and the manifest's comparison says so (`inline`); a tool's
 * change, a move, a tier or contributor change are not marked.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { compareGoldenManifests } from "../../../adapters/cache/mod.ts";
import { contractManifest } from "./contract_fixture.ts";

describe("golden differences a running conversation tells inline (issue 46)", () => {
  it("a section's change: inline, said in its message, the rewrite for new conversations kept", async () => {
    const golden = await contractManifest();
    for (
      const edits of [
        { filesGuidance: "Read before you write, always." },
        { reviewerPersona: "You review, strictly." },
      ]
    ) {
      const differences = compareGoldenManifests(
        golden,
        await contractManifest(edits),
      );
      assert.ok(differences.length > 0);
      for (const difference of differences) {
        assert.match(difference.entry ?? "", /^section:/);
        assert.equal(difference.inline, true);
        assert.ok(difference.rewriteTokens > 0);
        assert.match(
          difference.message,
          /writes \d+ tokens of its cached tiers again \(a conversation already running tells the change inline and writes none of it again\)$/,
        );
      }
    }
  });

  it("a tool's change and a move: not marked", async () => {
    const golden = await contractManifest();
    for (
      const edits of [
        { shellDescription: "Run a shell command (updated 2026-12-05)." },
        { reorderTools: true },
      ]
    ) {
      const differences = compareGoldenManifests(
        golden,
        await contractManifest(edits),
      );
      assert.ok(differences.length > 0);
      for (const difference of differences) {
        assert.equal(difference.inline, undefined);
        assert.doesNotMatch(difference.message, /inline/);
      }
    }
  });
});
