/**
 * How `renderPrompt` scales with the number of distinct section texts (run
 * with `deno bench tests/bench/render_scale_bench.ts`).
 *
 * Each assembly holds n distinct sections (1k, 10k, 100k; every text is
 * different, with three references). The module's template cache holds
 * about 13k of these texts, so the largest size renders past its bound:
 * most sections miss and are rendered straight from the text, and once a
 * run of 1,024 mostly misses, the rest of the prompt skips the cache. Each render's result is read once, as any consumer
 * does: V8 joins strings lazily, and an unread result would defer part of
 * the work into garbage collection, where it grows with the size of the
 * result. Before the benches run, the file prints the growth exponent
 * `log(t(100k) / t(1k)) / log(100)` (1 is linear) from interleaved samples.
 *
 * "large text": one section of 64 KB or 256 KB holding a reference every
 * 40 characters, rendered from the cache against parsed on every render
 * (the cache emptied first): whether caching large texts pays.
 */

import { type PromptAssembly, renderPrompt } from "../../mod.ts";
import { clearTemplateCache } from "../../src/render/template_cache.ts";

const SIZES = [1_000, 10_000, 100_000];
const VARIABLES = {
  cwd: "/home/agent/workspace/project",
  model: "example-model-2025-01",
  project: "rxprompt",
};

function distinctSections(count: number): PromptAssembly {
  const sections = [];
  for (let index = 0; index < count; index++) {
    sections.push({
      name: `rule:${index}`,
      order: index,
      text: `## Rule ${index}\nWork in {{cwd}} with {{model}}; ` +
        `rule ${index} of {{project}} applies.`,
    });
  }
  return { sections, tools: [], variables: VARIABLES };
}

const assemblies = SIZES.map(distinctSections);
let sink = 0;

/** Reads the prompt, which flattens it into one contiguous string. */
function read(prompt: string): number {
  return prompt.charCodeAt(prompt.length >> 1);
}

/** Milliseconds per render of `assembly`, over at least 50 ms. */
function msPerRender(assembly: PromptAssembly): number {
  let renders = 0;
  const start = performance.now();
  do {
    sink += read(renderPrompt(assembly));
    renders++;
  } while (performance.now() - start < 50);
  return (performance.now() - start) / renders;
}

/** The best of seven interleaved samples per size. */
function bestTimes(): number[] {
  const best = SIZES.map(() => Infinity);
  for (let round = 0; round < 7; round++) {
    assemblies.forEach((assembly, index) => {
      best[index] = Math.min(best[index], msPerRender(assembly));
    });
  }
  return best;
}

function exponent(times: number[], from: number, to: number): number {
  return Math.log(times[to] / times[from]) / Math.log(SIZES[to] / SIZES[from]);
}

const times = bestTimes();
console.log(
  SIZES.map((size, index) =>
    `${size} sections: ${times[index].toFixed(3)} ms ` +
    `(${(times[index] / size * 1e6).toFixed(0)} ns/section)`
  ).join("; "),
);
console.log(
  `growth exponent 1k→100k: ${exponent(times, 0, 2).toFixed(3)} ` +
    `(1k→10k: ${exponent(times, 0, 1).toFixed(3)}, ` +
    `10k→100k: ${exponent(times, 1, 2).toFixed(3)}; target ≤ 1.1)`,
);

for (const [index, assembly] of assemblies.entries()) {
  Deno.bench({
    name: `renderPrompt, ${SIZES[index]} distinct sections`,
    group: "distinct sections",
    baseline: index === 0,
    fn() {
      sink += read(renderPrompt(assembly));
    },
  });
}

const UNIT = "Work in {{cwd}} with {{model}}, kindly. ";
for (const kilobytes of [64, 256]) {
  const text = UNIT.repeat(Math.ceil(kilobytes * 1024 / UNIT.length));
  const large: PromptAssembly = {
    sections: [{ name: "large", order: 0, text }],
    tools: [],
    variables: VARIABLES,
  };
  Deno.bench({
    name: `${kilobytes} KB section, cached`,
    group: `large text ${kilobytes} KB`,
    baseline: true,
    fn() {
      sink += renderPrompt(large).length;
    },
  });
  Deno.bench({
    name: `${kilobytes} KB section, parsed every time`,
    group: `large text ${kilobytes} KB`,
    fn() {
      clearTemplateCache();
      sink += renderPrompt(large).length;
    },
  });
}

globalThis.addEventListener("unload", () => {
  if (sink === -1) console.log(sink);
});
