/**
 * Heap under churn: a million mixed register/dispose cycles (sections,
 * variables, tools, listeners, effects, forks and scopes) must not grow the
 * heap: after the millionth cycle it is within 1 MiB of its value after the
 * first 10k. Needs a collectable heap: `deno test --v8-flags=--expose-gc
 * tests/memory/` or `NODE_OPTIONS=--expose-gc node --test`; skipped otherwise, and on Bun.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt } from "../../mod.ts";
import { heapAfterGc, heapSkip } from "./heap.ts";

const skip = heapSkip("heap sizes");

const CYCLES = 1_000_000;
const WARM_UP = 10_000;
const BATCH = 1_000;
const TOLERANCE = 1024 * 1024;

function noop(): void {}

/**
 * The effect body, defined once as a plugin would. V8 itself keeps about
 * 6 bytes for every distinct generator closure that is ever called (a new
 * `function* () {}` per cycle grows the heap the same way without this
 * module), so a body created per cycle would measure V8, not the registry.
 */
function* effectBody(): Generator<() => void> {
  yield noop;
}

/** One register/dispose cycle of kind `index % 7`; returns the disposal. */
function cycle(prompt: SystemPrompt, index: number): Promise<void> {
  const name = `churn_${index % 64}`;
  switch (index % 7) {
    case 0:
      return prompt.section({ name, order: 1, text: name })();
    case 1:
      return prompt.variable(name, () => name)();
    case 2:
      return prompt.tools(() => ({ schemas: [] }))();
    case 3:
      return prompt.onAssemble((_assembly, _context, next) => next())();
    case 4:
      return prompt.effect(effectBody)();
    case 5:
      return prompt.fork().section({ name, order: 2, text: name })();
    default: {
      const agent = { id: index };
      return prompt.scope(agent).variable(name, () => name)();
    }
  }
}

async function run(prompt: SystemPrompt, from: number, to: number) {
  for (let start = from; start < to; start += BATCH) {
    const disposals: Promise<void>[] = [];
    for (let index = start; index < start + BATCH; index++) {
      disposals.push(cycle(prompt, index));
    }
    await Promise.all(disposals);
  }
}

describe("memory: register/dispose churn", { skip }, () => {
  it(`${CYCLES} mixed register/dispose cycles keep the heap within 1 MiB of its size after ${WARM_UP}`, async () => {
    const prompt = new SystemPrompt();
    await run(prompt, 0, WARM_UP);
    const before = await heapAfterGc();
    await run(prompt, WARM_UP, CYCLES);
    const after = await heapAfterGc();
    const grown = after - before;
    console.log(
      `churn: heap ${(before / 1048576).toFixed(2)} MiB after ${WARM_UP} ` +
        `cycles, ${(after / 1048576).toFixed(2)} MiB after ${CYCLES} ` +
        `(${grown >= 0 ? "+" : ""}${(grown / 1024).toFixed(1)} KiB)`,
    );
    assert.ok(grown <= TOLERANCE, `the heap grew by ${grown} bytes`);
    assert.equal(
      (await prompt.assemble()).sections.length,
      2,
      "only the built-ins remain",
    );
    await prompt.dispose();
  });
});
