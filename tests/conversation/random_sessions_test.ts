/**
 * Seeded random sessions on every conversation form (`random_session.ts`):
 * a twin saved and resumed at random points builds the very bodies of the
 * conversation that lived the whole session, and the tests' servers, which
 * enforce the providers' rules, accept every request. A failure names the
 * form, the seed and the request; `deno run -A tests/conversation/
 * random_sessions_test.ts` is not needed to replay it: the seed is enough.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { RANDOM_FORMS, randomSession } from "./random_session.ts";

const SEEDS = [1, 2, 3, 4];
const STEPS = 30;

for (const form of RANDOM_FORMS) {
  describe(`random sessions on ${form}`, () => {
    for (const seed of SEEDS) {
      it(`seed ${seed}: the resumed twin sends the same bodies, all accepted`, async () => {
        const figures = await randomSession(form, { seed, steps: STEPS });
        // The session did what it is for.
        assert.ok(figures.requests >= STEPS);
        assert.ok(figures.resumes > 0, "the twin was resumed");
      });
    }
  });
}
