/**
 * More seeded random sessions than the unit part runs
 * (`random_sessions_test.ts`): twelve more seeds of 40 turns on every form,
 * the resumed twin held to the live conversation's bytes and every request
 * to the rules of the tests' servers.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { RANDOM_FORMS, randomSession } from "./random_session.ts";

const SEEDS = Array.from({ length: 12 }, (_, index) => 101 + index);
const STEPS = 40;

for (const form of RANDOM_FORMS) {
  describe(`random sessions on ${form}, more seeds`, () => {
    it(`seeds ${SEEDS[0]}–${SEEDS.at(-1)}: the resumed twin sends the same bodies, all accepted`, async () => {
      let resumes = 0;
      for (const seed of SEEDS) {
        resumes += (await randomSession(form, { seed, steps: STEPS })).resumes;
      }
      assert.ok(resumes > SEEDS.length, "the twins were resumed");
    });
  });
}
