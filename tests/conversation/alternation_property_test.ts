/**
 * Bedrock Converse and Gemini refuse a request whose turns do not alternate
 * between the user and the model (Converse also one that does not start
 * with the user's): for random sessions (tool rounds, person pauses,
 * runtime-context, gate and tool-list changes), fresh or resumed after
 * every answer, every body of their conversations alternates.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { fuzzRuns } from "../fuzz_runs.ts";
import { sessionArbitrary } from "./session.ts";
import { FORMS } from "./forms.ts";
import { runSession } from "./run_session.ts";

type Body = {
  messages?: { role: string }[];
  contents?: { role: string }[];
};

const ALTERNATING = ["bedrock-converse", "gemini"];

describe("Converse and Gemini bodies alternate (property)", () => {
  for (const form of FORMS.filter(({ name }) => ALTERNATING.includes(name))) {
    for (const resume of [false, true]) {
      it(`${form.name}${resume ? ", resumed" : ""}: user and model turns alternate, the user's first`, async () => {
        await fc.assert(
          fc.asyncProperty(sessionArbitrary, async (steps) => {
            const bodies = await runSession(form, steps, { resume }) as Body[];
            for (const [index, body] of bodies.entries()) {
              const roles = (body.messages ?? body.contents)!.map((turn) =>
                turn.role
              );
              assert.equal(roles[0], "user", `step ${index + 1}`);
              roles.forEach((role, at) =>
                assert.notEqual(
                  role,
                  roles[at - 1],
                  `step ${index + 1}: turns ${
                    at - 1
                  } and ${at} are both ${role}'s`,
                )
              );
            }
          }),
          { numRuns: fuzzRuns(30) },
        );
      });
    }
  }
});
