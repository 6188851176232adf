/**
 * A listener that starts an assembly synchronously from inside its own
 * call, again and again, gets REENTRANT_ASSEMBLY naming it at a fixed
 * depth, not a RangeError when the stack runs out.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt, SystemPromptError } from "../../mod.ts";
import { MAX_LISTENER_REENTRY } from "../../src/assemble/waterfall.ts";
import { rejects } from "../assertions.ts";

describe("an assembly started from inside a listener's call", () => {
  it("REENTRANT_ASSEMBLY names the listener that awaits its own registry", async () => {
    const prompt = new SystemPrompt({ persona: "You are terse." });
    prompt.onAssemble((_assembly, _context, next) => next());
    prompt.onAssemble(async function awaitsItself(_assembly, context, next) {
      await prompt.assemble(context);
      return next();
    });
    await assert.rejects(
      prompt.assemble(),
      rejects(
        "REENTRANT_ASSEMBLY",
        'Assembly listener #2 ("awaitsItself")',
        `${MAX_LISTENER_REENTRY} levels deep`,
      ),
    );
    // Nothing is left set: the next assembly runs as usual.
    const other = new SystemPrompt({ persona: "Other." });
    assert.equal((await other.assemble()).sections.length, 2);
    await prompt.dispose();
    await other.dispose();
  });

  it("one that drops the nested promise: each too deep one rejects, typed", async () => {
    const prompt = new SystemPrompt({ persona: "You are terse." });
    const errors: unknown[] = [];
    prompt.onAssemble((_assembly, context, next) => {
      prompt.assemble(context).catch((error) => errors.push(error));
      return next();
    });
    const assembly = await prompt.assemble();
    assert.equal(assembly.sections.length, 2);
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.ok(errors.length > 0);
    for (const error of errors) {
      assert.ok(error instanceof SystemPromptError, String(error));
      assert.equal(error.code, "REENTRANT_ASSEMBLY");
    }
    await prompt.dispose();
  });

  it("nests up to the fixed depth, and fails one level past it", async () => {
    for (const levels of [MAX_LISTENER_REENTRY, MAX_LISTENER_REENTRY + 1]) {
      const prompt = new SystemPrompt({ persona: "You are terse." });
      let level = 0;
      prompt.onAssemble(async function nests(_assembly, context, next) {
        if (level < levels) {
          level += 1;
          await prompt.assemble(context);
        }
        return next();
      });
      const result = prompt.assemble();
      if (levels === MAX_LISTENER_REENTRY) {
        assert.equal((await result).sections.length, 2);
      } else {
        await assert.rejects(result, rejects("REENTRANT_ASSEMBLY", "nests"));
      }
      await prompt.dispose();
    }
  });

  it("another registry assembled from inside a listener is no re-entry", async () => {
    const subAgent = new SystemPrompt({ persona: "You review code." });
    const prompt = new SystemPrompt({ persona: "You are terse." });
    prompt.onAssemble(async (_assembly, _context, next) => {
      const nested = await subAgent.assemble();
      assert.equal(nested.sections.length, 2);
      return next();
    });
    assert.equal((await prompt.assemble()).sections.length, 2);
    await prompt.dispose();
    await subAgent.dispose();
  });
});
