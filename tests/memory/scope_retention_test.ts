/**
 * Retention of the README's per-agent pattern: a scope (or fork) per agent,
 * cleaned up through the registration's disposer only. Needs a collectable
 * heap: `deno test --v8-flags=--expose-gc tests/memory/` or
 * `NODE_OPTIONS=--expose-gc node --test`; skipped otherwise, and on Bun.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt } from "../../mod.ts";
import { Lifetime } from "../../src/lifetime/lifetime.ts";
import { heapAfterGc, heapSkip } from "./heap.ts";

const skip = heapSkip("heap slopes");

/** Bytes of heap retained per agent allowed between 20k and 200k agents. */
const BYTES_PER_AGENT = 55;

/**
 * Heap slope in bytes per agent: `agent(i)` runs for 20k agents (warm-up and
 * baseline), then for 180k more.
 */
async function retainedPerAgent(
  agent: (index: number) => Promise<void>,
): Promise<number> {
  let index = 0;
  for (; index < 20_000; index++) await agent(index);
  const before = await heapAfterGc();
  for (; index < 200_000; index++) await agent(index);
  const after = await heapAfterGc();
  return (after - before) / 180_000;
}

function report(label: string, bytes: number): void {
  console.log(`${label}: ${bytes.toFixed(1)} bytes retained per agent`);
}

describe("memory: a registrar per agent, disposed through its registrations", {
  skip,
}, () => {
  it("an empty child lifetime is collectable once its owner forgets it", async () => {
    const root = new Lifetime();
    let child: Lifetime | undefined = new Lifetime(root);
    await child.own(() => {})();
    const ref = new WeakRef(child);
    child = undefined;
    await heapAfterGc();
    assert.equal(ref.deref(), undefined, "the owner still holds the child");
    await root.dispose();
  });

  it("a disposer kept after its teardown ran holds neither the teardown nor its owner", async () => {
    const root = new Lifetime();
    let child: Lifetime | undefined = new Lifetime(root);
    let payload: object | undefined = { captured: "by the teardown" };
    const payloadRef = new WeakRef(payload);
    const teardownOf = (value: object) => () => void value;
    const kept = child.own(teardownOf(payload));
    payload = undefined;
    await kept();
    const childRef = new WeakRef(child);
    child = undefined;
    await heapAfterGc();
    assert.equal(payloadRef.deref(), undefined, "it holds its teardown");
    assert.equal(childRef.deref(), undefined, "it holds its owner");
    assert.equal(typeof kept, "function"); // kept until here
    await root.dispose();
  });

  it(`a child lifetime per agent retains <= ${BYTES_PER_AGENT} bytes`, async () => {
    const root = new Lifetime();
    const bytes = await retainedPerAgent(async () => {
      await new Lifetime(root).own(() => {})();
    });
    report("Lifetime", bytes);
    assert.ok(bytes <= BYTES_PER_AGENT, `${bytes.toFixed(1)} bytes per agent`);
    await root.dispose();
  });

  for (const kind of ["scope", "fork"] as const) {
    it(`prompt.${kind}(agent).section(...) retains <= ${BYTES_PER_AGENT} bytes per agent`, async () => {
      const prompt = new SystemPrompt();
      const bytes = await retainedPerAgent(async (index) => {
        const agent = { id: index };
        const registrar = kind === "scope"
          ? prompt.scope(agent)
          : prompt.fork();
        await registrar.section({ name: "agent", order: 1, text: "x" })();
      });
      report(`SystemPrompt ${kind}`, bytes);
      assert.ok(
        bytes <= BYTES_PER_AGENT,
        `${bytes.toFixed(1)} bytes per agent`,
      );
      await prompt.dispose();
    });
  }
});
