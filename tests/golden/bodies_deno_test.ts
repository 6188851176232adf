/**
 * Issue 45: every request body the forms, the example sessions and the
 * stateless adapters build is byte-identical to what main built before the
 * house was rebuilt (digests taken once by `scripts/golden_bodies.ts`,
 * never again), and the recordings and reports are what their fixtures
 * say. A mismatch names the group and each key that differs (session or
 * scenario, form, step).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  BODY_GROUPS,
  digestFile,
  digestsOf,
  RECORD_GROUPS,
} from "./groups_deno.ts";

async function check(
  kind: "bodies" | "records",
  group: string,
  build: () => Promise<Map<string, unknown>>,
): Promise<void> {
  const kept = JSON.parse(
    await Deno.readTextFile(digestFile(kind, group)),
  ) as Record<string, string>;
  const now = digestsOf(await build());
  const differing = Object.keys(kept).filter((key) => now[key] !== kept[key]);
  const added = Object.keys(now).filter((key) => !(key in kept));
  assert.ok(
    Object.keys(kept).length > 0,
    `${kind}/${group}.json holds no digest`,
  );
  assert.deepEqual(
    { differing: differing.slice(0, 20), added: added.slice(0, 20) },
    { differing: [], added: [] },
    `${kind}/${group}: ${differing.length} of ${
      Object.keys(kept).length
    } differ (${
      differing.length > 20 ? "the first 20 listed" : "all listed"
    }), ${added.length} not in the fixtures`,
  );
}

describe("golden bodies (issue 45)", () => {
  for (const [group, build] of Object.entries(BODY_GROUPS)) {
    it(`${group}: every body is the one main sent`, async () => {
      await check("bodies", group, build);
    });
  }
  for (const [group, build] of Object.entries(RECORD_GROUPS)) {
    it(`${group}: every recording and report is the fixture's`, async () => {
      await check("records", group, build);
    });
  }
});
