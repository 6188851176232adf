/** The cost of an assembly at scale (`deno task test:slow`). */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt } from "../../mod.ts";
import { ownSections, tool } from "../fixtures.ts";

describe("cost at scale", () => {
  it("assembling for a scope does not depend on how many other scopes exist", async () => {
    const key = { id: "target" };
    const build = (otherScopes: number) => {
      const prompt = new SystemPrompt();
      // The other scopes first, so that a search through the scopes in
      // insertion order would not find the target at once.
      for (let i = 0; i < otherScopes; i++) {
        const scoped = prompt.scope({ i });
        scoped.section({ name: "other", order: 1, text: "other" });
        scoped.variable("model", () => "other");
      }
      for (let i = 0; i < 5; i++) {
        prompt.section({ name: `g${i}`, order: i, text: "g" });
        prompt.scope(key).section({ name: `s${i}`, order: i, text: "s" });
      }
      prompt.variable("model", () => "m");
      prompt.scope(key).tools(() => ({ schemas: [tool("t")] }));
      return prompt;
    };
    const alone = build(0);
    const crowded = build(20_000);
    const batch = 1_000;
    const time = async (prompt: SystemPrompt) => {
      const start = performance.now();
      for (let i = 0; i < batch; i++) await prompt.assemble({ scope: key });
      return performance.now() - start;
    };
    // Interleaved best-of-7, so that load on the machine and garbage
    // collection hit both sides alike. A cost linear in the number of scopes
    // would make the ratio well above 100.
    await time(alone);
    await time(crowded);
    let bestAlone = Infinity;
    let bestCrowded = Infinity;
    for (let round = 0; round < 7; round++) {
      bestAlone = Math.min(bestAlone, await time(alone));
      bestCrowded = Math.min(bestCrowded, await time(crowded));
    }
    const ratio = bestCrowded / Math.max(bestAlone, 0.01);
    assert.ok(
      ratio < 10,
      `${batch} assemblies took ${bestAlone.toFixed(1)}ms alone and ` +
        `${bestCrowded.toFixed(1)}ms beside 20,000 scopes ` +
        `(ratio ${ratio.toFixed(1)}, expected about 1)`,
    );
    const assembly = await crowded.assemble({ scope: key });
    assert.deepEqual(ownSections(assembly), [
      "g0",
      "s0",
      "g1",
      "s1",
      "g2",
      "s2",
      "g3",
      "s3",
      "g4",
      "s4",
    ]);
    assert.deepEqual(assembly.variables, { model: "m" });
    await alone.dispose();
    await crowded.dispose();
  });
});
