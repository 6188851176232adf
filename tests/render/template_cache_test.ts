import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { fuzzRuns } from "../fuzz_runs.ts";
import { renderPrompt } from "../../mod.ts";
import {
  cachedTemplateOf,
  TEMPLATE_CACHE_MAX_BYTES,
  TemplateCache,
  templateCacheStats,
} from "../../src/render/template_cache.ts";

// A text without references costs 208 + 2 bytes per code unit: these cost
// 408 bytes each, so a 1,224-byte cache holds exactly three.
function text(label: string): string {
  return label.padEnd(100, ".");
}
const ENTRY = 408;
/** Fixed so that a failure replays. */
const LRU_SEED = 4096;

describe("TemplateCache", () => {
  it("returns the cached template on a hit, and parses correctly", () => {
    const cache = new TemplateCache();
    const template = cache.templateOf("a {{x}} b");
    assert.deepEqual(
      [template.literals, template.names],
      [["a ", " b"], ["x"]],
    );
    assert.equal(cache.templateOf("a {{x}} b"), template);
    assert.equal(cache.templateOf(("a {{x}}" + " b").slice(0)), template);
    assert.equal(cache.stats().entries, 1);
  });

  it("evicts one entry at a time, least recently used first", () => {
    const cache = new TemplateCache({
      maxBytes: 3 * ENTRY,
      maxEntryBytes: 3 * ENTRY,
      admitOneIn: 1,
    });
    for (const label of ["a", "b", "c"]) cache.templateOf(text(label));
    assert.deepEqual(cache.stats(), {
      entries: 3,
      bytes: 3 * ENTRY,
      maxBytes: 3 * ENTRY,
    });
    cache.templateOf(text("a")); // a hit makes "a" the most recent
    cache.templateOf(text("d"));
    assert.deepEqual(cache.texts(), [text("c"), text("a"), text("d")]);
    cache.templateOf(text("c"));
    cache.templateOf(text("e"));
    assert.deepEqual(cache.texts(), [text("d"), text("c"), text("e")]);
    // A hit on the most recent entry keeps the order.
    cache.templateOf(text("e"));
    assert.deepEqual(cache.texts(), [text("d"), text("c"), text("e")]);
    // A hit in the middle moves that entry alone.
    cache.templateOf(text("c"));
    assert.deepEqual(cache.texts(), [text("d"), text("e"), text("c")]);
    cache.templateOf(text("f"));
    assert.deepEqual(cache.texts(), [text("e"), text("c"), text("f")]);
    assert.equal(cache.stats().bytes, 3 * ENTRY);
  });

  it(`agrees with a list-based LRU model (seed ${LRU_SEED})`, () => {
    const labels = ["a", "b", "c", "d", "e", "f", "g"];
    const steps = fc.array(
      fc.tuple(fc.constantFrom(...labels), fc.integer({ min: 0, max: 300 })),
      { maxLength: 60 },
    );
    fc.assert(
      fc.property(steps, fc.integer({ min: 1, max: 4 }), (texts, fits) => {
        const maxBytes = fits * ENTRY;
        const cache = new TemplateCache({
          maxBytes,
          maxEntryBytes: maxBytes,
          admitOneIn: 1,
        });
        // The model: a list, least recently used first, with a cost each.
        const model: { text: string; bytes: number }[] = [];
        for (const [label, padding] of texts) {
          const value = `${label}${".".repeat(padding)}`;
          const bytes = 208 + 2 * value.length;
          const known = model.findIndex((entry) => entry.text === value);
          if (known !== -1) {
            model.push(...model.splice(known, 1));
          } else if (bytes <= maxBytes) {
            let total = model.reduce((sum, entry) => sum + entry.bytes, 0);
            while (total + bytes > maxBytes) total -= model.shift()!.bytes;
            model.push({ text: value, bytes });
          }
          cache.templateOf(value);
          assert.deepEqual(cache.texts(), model.map((entry) => entry.text));
        }
        const total = model.reduce((sum, entry) => sum + entry.bytes, 0);
        assert.equal(cache.stats().bytes, total);
      }),
      { numRuns: fuzzRuns(500), seed: LRU_SEED },
    );
  });

  it("once full, admits one miss in admitOneIn, evicting the oldest", () => {
    const cache = new TemplateCache({
      maxBytes: 2 * ENTRY,
      maxEntryBytes: ENTRY,
      admitOneIn: 4,
    });
    assert.equal(new TemplateCache().admitOneIn, 16);
    cache.templateOf(text("a"));
    cache.templateOf(text("b"));
    const admitted: string[] = [];
    for (let index = 0; index < 12; index++) {
      const label = `new${index}`;
      // Not admitted or not, every miss still parses correctly.
      assert.deepEqual(cache.templateOf(text(label)).literals, [text(label)]);
      if (cache.texts().includes(text(label))) admitted.push(label);
      assert.equal(cache.stats().entries, 2);
    }
    assert.deepEqual(admitted, ["new3", "new7", "new11"]);
    assert.deepEqual(cache.texts(), [text("new7"), text("new11")]);
    // Hits are unaffected: the cached texts stay and refresh.
    cache.templateOf(text("new7"));
    assert.deepEqual(cache.texts(), [text("new11"), text("new7")]);
  });

  it("evicts as many of the oldest as a larger entry needs, and no more", () => {
    const cache = new TemplateCache({
      maxBytes: 3 * ENTRY,
      maxEntryBytes: 3 * ENTRY,
      admitOneIn: 1,
    });
    for (const label of ["a", "b", "c"]) cache.templateOf(text(label));
    const double = "w".repeat(100 + ENTRY / 2);
    cache.templateOf(double);
    assert.deepEqual(cache.texts(), [text("c"), double]);
    assert.equal(cache.stats().bytes, 3 * ENTRY);
  });

  it("counts references in an entry's cost", () => {
    const cache = new TemplateCache();
    cache.templateOf("{{a}}{{b}}");
    // 160 + 2 * 10 code units + 48 * (3 literals + 2 names)
    assert.equal(cache.stats().bytes, 420);
  });

  it("keeps its byte bound under any sequence of texts", () => {
    const cache = new TemplateCache({ maxBytes: 10_000 });
    let maxSeen = 0;
    for (let index = 0; index < 500; index++) {
      const size = (index * 7919) % 1_500;
      cache.templateOf(`${index}:${"{{x}}".repeat(size % 40)}`.padEnd(size));
      cache.templateOf(`${index % 13}:{{y}}`); // recurring texts hit
      maxSeen = Math.max(maxSeen, cache.stats().bytes);
    }
    assert.ok(maxSeen <= 10_000, `${maxSeen} bytes`);
    assert.ok(cache.stats().entries > 5, `${cache.stats().entries} entries`);
  });

  it("does not cache a text above the entry bound, but still parses it", () => {
    const cache = new TemplateCache({ maxBytes: 4 * ENTRY });
    assert.equal(cache.maxEntryBytes, ENTRY);
    cache.templateOf(text("a"));
    const large = text("b").repeat(2);
    assert.deepEqual(cache.templateOf(large).literals, [large]);
    assert.deepEqual(cache.texts(), [text("a")]);
  });

  it("cachedTemplateOf gives undefined for a text above the entry bound: a miss it does not keep", () => {
    const cache = new TemplateCache({ maxBytes: 4 * ENTRY });
    const large = text("b").repeat(2);
    assert.equal(cache.cachedTemplateOf(large), undefined);
    assert.deepEqual(cache.cachedTemplateOf(text("a"))?.literals, [text("a")]);
    assert.deepEqual(cache.texts(), [text("a")]);
  });

  it("empties on clear", () => {
    const cache = new TemplateCache();
    cache.templateOf("a");
    cache.clear();
    assert.deepEqual(cache.stats(), {
      entries: 0,
      bytes: 0,
      maxBytes: TEMPLATE_CACHE_MAX_BYTES,
    });
    assert.deepEqual(cache.texts(), []);
  });
});

describe("renderPrompt: the template cache", () => {
  it("stays within 8 MiB when rendering 64 KB texts, evicting one at a time", () => {
    assert.equal(templateCacheStats().maxBytes, 8 * 1024 * 1024);
    const references = 1_024;
    const filler = "{{x}} of 64 characters, most of it plain words...... "
      .padEnd(64, ".").repeat(references); // 64 KB
    const entries: number[] = [];
    for (let index = 0; index < 120; index++) {
      const text = `${index}\n${filler}`;
      const prompt = renderPrompt({
        sections: [{ name: "big", order: 0, text }],
        tools: [],
        variables: { x: "v" },
      });
      assert.equal(prompt.length, text.length - references * 4);
      const { bytes, maxBytes } = templateCacheStats();
      assert.ok(bytes <= maxBytes, `${bytes} > ${maxBytes}`);
      entries.push(templateCacheStats().entries);
    }
    // Once full, each new text evicts about one entry of the same size:
    // the count never collapses as a cache emptied all at once would.
    const full = entries.slice(60);
    assert.ok(Math.min(...full) >= Math.max(...full) - 1, String(full));
    assert.ok(Math.min(...full) >= 30, String(full));
  });
});

/** Milliseconds per call of `fn`, repeated for at least 20 ms. */
function msPerCall(fn: () => void): number {
  let calls = 0;
  const start = performance.now();
  do {
    fn();
    calls++;
  } while (performance.now() - start < 20);
  return (performance.now() - start) / calls;
}

describe("renderPrompt: many distinct sections", () => {
  it("renders 20,000 distinct sections within a linear factor of 2,000", () => {
    // Short texts: both sets fit the cache together. A cache of 4,096
    // entries emptied when full made every one of the 20,000 a miss.
    function distinct(count: number) {
      const sections = [];
      for (let index = 0; index < count; index++) {
        sections.push({ name: `s${index}`, order: 0, text: `${index} {{x}}` });
      }
      return { sections, tools: [], variables: { x: "v" } };
    }
    const small = distinct(2_000);
    const large = distinct(20_000);
    assert.equal(renderPrompt(large).split("\n\n")[19_999], "19999 v");
    // Linear is 10x; 30x leaves room for a noisy machine and memory effects.
    const ratios: string[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      let bestSmall = Infinity;
      let bestLarge = Infinity;
      for (let round = 0; round < 7; round++) {
        bestSmall = Math.min(bestSmall, msPerCall(() => renderPrompt(small)));
        bestLarge = Math.min(bestLarge, msPerCall(() => renderPrompt(large)));
      }
      const ratio = bestLarge / bestSmall;
      if (ratio < 30) return;
      ratios.push(ratio.toFixed(1));
    }
    assert.fail(`10x the sections took ${ratios.join("x, ")}x the time`);
  });
});

describe("renderPrompt: a cached text's last render", () => {
  function assemblyOf(text: string, variables: Record<string, unknown>) {
    return {
      sections: [{ name: "s", order: 0, text }],
      tools: [],
      variables,
    } as unknown as Parameters<typeof renderPrompt>[0];
  }

  it("is reused only while every value is the same, whichever changes", () => {
    const template = "memo {{a}} then {{b}} and {{a}} and {{c}}.";
    const base = { a: "1", b: "2", c: "3" };
    const runs: Record<string, string>[] = [
      base,
      base,
      { ...base, c: "x" },
      { ...base, a: "y" },
      { ...base, b: "" },
      base,
    ];
    for (const variables of runs) {
      assert.equal(
        renderPrompt(assemblyOf(template, variables)),
        `memo ${variables.a} then ${variables.b} and ${variables.a} and ` +
          `${variables.c}.`,
      );
    }
  });

  it("still reads each variable once and fails on a missing one", () => {
    const template = "memo2 {{a}} {{b}} {{a}}";
    assert.equal(
      renderPrompt(assemblyOf(template, { a: "1", b: "2" })),
      "memo2 1 2 1",
    );
    let reads = 0;
    const counted = {
      get a() {
        reads++;
        return "1";
      },
      b: "2",
    };
    assert.equal(renderPrompt(assemblyOf(template, counted)), "memo2 1 2 1");
    assert.equal(reads, 1);
    assert.throws(
      () => renderPrompt(assemblyOf(template, { a: "1" })),
      { code: "UNKNOWN_VARIABLE" },
    );
    assert.throws(
      () => renderPrompt(assemblyOf(template, { a: "1", b: 2 })),
      { name: "SystemPromptError" },
    );
  });

  it("does not keep a render much larger than its text", () => {
    const template = "memo3 {{big}}";
    const big = "x".repeat(100_000);
    assert.equal(renderPrompt(assemblyOf(template, { big })), `memo3 ${big}`);
    assert.equal(cachedTemplateOf(template)?.last, undefined);
    assert.equal(
      renderPrompt(assemblyOf(template, { big: "y" })),
      "memo3 y",
    );
    // A render of about the text's size is kept, with the values it read.
    assert.deepEqual(cachedTemplateOf(template)?.last, {
      values: ["y"],
      rendered: "memo3 y",
    });
  });
});
