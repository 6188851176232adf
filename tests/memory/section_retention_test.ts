/**
 * Heap retained per registered section: sections registered into one layer
 * of a registry, each owned by its disposer, as a plugin registers them.
 * Needs a collectable heap: `deno test --v8-flags=--expose-gc tests/memory/`
 * or `NODE_OPTIONS=--expose-gc node --test`; skipped otherwise, and on Bun.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Disposer, SystemPrompt } from "../../mod.ts";
import { NameTable } from "../../src/store/name_table.ts";
import { heapAfterGc, heapSkip } from "./heap.ts";

const skip = heapSkip("heap slopes");

/**
 * Bytes of heap retained per registered section, at most: the goal. About
 * 250 are retained on Deno 2.9.6: the record about 65, the layer's sorted
 * list, name index and assembly plan about 55, and the registration's
 * lifetime entry with its exact disposer (a bound function) about 130.
 */
const BYTES_PER_SECTION = 300;

describe("memory: registered sections", { skip }, () => {
  it("a name index holds no record it removed", async () => {
    const table = new NameTable<{ readonly name: string }>();
    let record: { readonly name: string } | undefined = { name: "removed" };
    table.add(record);
    table.add({ name: "kept" });
    table.remove(record);
    const ref = new WeakRef(record);
    record = undefined;
    await heapAfterGc();
    assert.equal(ref.deref(), undefined);
    assert.equal(table.has("kept"), true); // the table lives until here
  });

  it(`a registered section retains <= ${BYTES_PER_SECTION} bytes (heap slope between 10k and 100k)`, async () => {
    const prompt = new SystemPrompt();
    const disposers: Disposer[] = [];
    // The section objects are the caller's: built before the baseline.
    const sections = Array.from({ length: 100_000 }, (_, index) => ({
      name: `rule:${index}`,
      order: index % 100,
      text: `Rule ${index}.`,
    }));
    let index = 0;
    for (; index < 10_000; index++) {
      disposers.push(prompt.section(sections[index]));
    }
    // The disposers array is the caller's too: sized before the baseline.
    disposers.length = sections.length;
    await prompt.assemble();
    const before = await heapAfterGc();
    for (; index < sections.length; index++) {
      disposers[index] = prompt.section(sections[index]);
    }
    await prompt.assemble();
    const after = await heapAfterGc();
    const bytes = (after - before) / (sections.length - 10_000);
    console.log(`${bytes.toFixed(1)} bytes retained per registered section`);
    assert.ok(bytes <= BYTES_PER_SECTION, `${bytes.toFixed(1)} bytes`);
    await prompt.dispose();
  });
});
