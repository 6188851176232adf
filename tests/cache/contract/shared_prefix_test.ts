/**
 * SPEC 9.5: what a child scope's first request shares with its parent's,
 * per provider, and the first divergence named by contributor.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { sharedPrefix } from "../../../adapters/cache/mod.ts";
import { type PromptExplanation, SystemPrompt } from "../../../mod.ts";
import { rejects } from "../../assertions.ts";
import { contractConfig, countTokens } from "./contract_fixture.ts";

async function explained(
  ...scopes: (string | undefined)[]
): Promise<PromptExplanation[]> {
  const { prompt } = contractConfig();
  try {
    return await Promise.all(scopes.map((scope) => prompt.explain({ scope })));
  } finally {
    await prompt.dispose();
  }
}

const tokensOf = (explanation: PromptExplanation, count: number) =>
  explanation.assembly.tools.slice(0, count).reduce(
    (sum, tool) => sum + countTokens(JSON.stringify(tool)),
    0,
  );

describe("sharedPrefix", () => {
  it("a sub-agent shares its parent's tools up to its own, on Anthropic", async () => {
    const [coder, reviewer] = await explained("coder", "reviewer");
    const shared = sharedPrefix(coder, reviewer, {
      provider: "anthropic",
      countTokens,
      minPrefixTokens: 0,
    });
    // read_file, shell, write_file (stable), run_tests (coder's, agent).
    assert.equal(shared.end, "tool:run_tests");
    assert.equal(shared.prefixTokens, tokensOf(coder, 4));
    assert.equal(shared.tokens, shared.prefixTokens);
    assert.equal(shared.identicalTokens, shared.prefixTokens);
    assert.deepEqual(shared.divergence, {
      parent: {
        entry: "tool:mcp_search",
        registrar: "registry/mcp",
        tier: "volatile",
      },
      child: {
        entry: "tool:submit_review",
        registrar: "registry/reviewer",
        tier: "agent",
      },
    });
  });

  it("below minPrefixTokens (default 1024) nothing is read", async () => {
    const [global, coder] = await explained(undefined, "coder");
    const shared = sharedPrefix(global, coder, {
      provider: "anthropic",
      countTokens,
    });
    assert.equal(shared.end, "tool:write_file");
    assert.ok(shared.prefixTokens > 0);
    assert.equal(shared.tokens, 0);
  });

  it("OpenAI explicit needs a system block end; automatic rounds down to 128 tokens", async () => {
    const [global, coder] = await explained(undefined, "coder");
    // Ten tokens a character: the three stable tools are over 128.
    const big = (text: string) => text.length * 10;
    const automatic = sharedPrefix(global, coder, {
      provider: "openai",
      countTokens: big,
      minPrefixTokens: 0,
    });
    const identical = automatic.identicalTokens;
    assert.equal(automatic.prefixTokens, Math.floor(identical / 128) * 128);
    assert.ok(automatic.prefixTokens > 0);
    const explicit = sharedPrefix(global, coder, {
      provider: "openai-explicit",
      countTokens: big,
      minPrefixTokens: 0,
    });
    // No block is shared (tools differ first): the automatic rule.
    assert.equal(explicit.prefixTokens, automatic.prefixTokens);
    assert.equal(
      sharedPrefix(global, coder, {
        provider: "anthropic",
        countTokens: big,
        minPrefixTokens: 0,
      }).prefixTokens,
      identical,
    );
  });

  it("identical views share everything, with no divergence", async () => {
    const [one, two] = await explained("reviewer", "reviewer");
    const shared = sharedPrefix(one, two, {
      provider: "openai-explicit",
      countTokens,
      minPrefixTokens: 0,
    });
    assert.equal(shared.divergence, undefined);
    assert.equal(shared.prefixTokens, shared.identicalTokens);
    assert.ok(shared.end?.startsWith("section:"));
  });

  it("a child that differs at the first entry shares nothing and says who", async () => {
    const prompt = new SystemPrompt();
    prompt.scope("a").section({ name: "persona", order: -200, text: "A." });
    prompt.scope("b", { label: "b" }).section({
      name: "persona",
      order: -200,
      text: "B.",
    });
    const [a, b] = await Promise.all(
      ["a", "b"].map((scope) => prompt.explain({ scope })),
    );
    await prompt.dispose();
    const shared = sharedPrefix(a, b, {
      provider: "anthropic",
      countTokens,
      minPrefixTokens: 0,
    });
    assert.equal(shared.identicalTokens, 0);
    assert.equal(shared.prefixTokens, 0);
    assert.equal(shared.end, undefined);
    assert.equal(shared.divergence?.child?.registrar, "registry/b");
  });

  it("rejects a bad provider, counter or minimum", async () => {
    const [one] = await explained(undefined);
    for (
      const [options, part] of [
        [{ provider: "mistral", countTokens }, '"mistral"'],
        [{ provider: "openai" }, "countTokens"],
        [{ provider: "openai", countTokens, minPrefixTokens: -1 }, "-1"],
      ] as const
    ) {
      assert.throws(
        () => sharedPrefix(one, one, options as never),
        rejects("INVALID_CONFIG", part),
      );
    }
    assert.throws(
      () =>
        sharedPrefix(one, null as never, { provider: "openai", countTokens }),
      rejects("INVALID_ASSEMBLY", "child"),
    );
  });
});
