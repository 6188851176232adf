/**
 * The config types exported from `./cli` (issue 26): the config forms the
 * loader accepts type-check against `RxpromptConfig`, and the loader reads
 * each of them.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type AssembleContext, SystemPrompt } from "../../mod.ts";
import type { RxpromptConfig } from "../../cli/main.ts";
import { readConfig } from "../../cli/config.ts";

interface Context extends AssembleContext {
  cwd?: string;
}

describe("RxpromptConfig", () => {
  it("types every form the loader reads", async () => {
    const prompt = new SystemPrompt<Context>({ includeHarnessIdentity: false });
    const reviewer = { id: "reviewer" };
    const forms: RxpromptConfig<Context>[] = [
      prompt,
      { prompt },
      {
        prompt,
        scopes: { reviewer },
        context: (scope) => ({ scope, cwd: "/" }),
      },
      () => prompt,
      () => Promise.resolve({ prompt, scopes: { reviewer } }),
    ];
    for (const form of forms) {
      const config = await readConfig({ default: form }, "typed.ts");
      assert.equal(config.prompt, prompt);
    }
    // @ts-expect-error: a number is not a config
    const wrong: RxpromptConfig = 42;
    assert.equal(wrong, 42);
    await prompt.dispose();
  });
});
