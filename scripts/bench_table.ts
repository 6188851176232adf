/**
 * The performance ratios of the README, measured side by side in one
 * process and printed as a table (`deno task bench:table`). Each ratio
 * times its two sides interleaved, in many short rounds, and divides their
 * fastest rounds: on a shared machine the fastest round is the one least
 * disturbed by other work, for both sides alike.
 *
 * W1 is the workload of `tests/bench/w1.ts`. The scale rows register
 * sections into one layer of a registry and assemble and render it; their
 * floor rows time the least any implementation must do at each size (copy
 * the sections, join their texts), for comparison.
 */

import Handlebars from "handlebars";
import { type PromptAssembly, renderPrompt, SystemPrompt } from "../mod.ts";
import { SeenObjects } from "../src/kinds/json_copy.ts";
import { copyToolSchema } from "../src/kinds/tool_schema.ts";
import { buildW1, W1_CONTEXT } from "../tests/bench/w1.ts";

const ROUNDS = 41;

/** Microseconds per call of `run`, over `calls` calls. */
async function timeBatch(
  run: () => unknown,
  calls: number,
): Promise<number> {
  const start = performance.now();
  for (let index = 0; index < calls; index++) await run();
  return (performance.now() - start) * 1000 / calls;
}

async function calibrate(run: () => unknown): Promise<number> {
  let calls = 1;
  // Batches of about 2 ms.
  while ((await timeBatch(run, calls)) * calls < 2000) calls *= 2;
  return calls;
}

/**
 * Milliseconds of alternating calls before a ratio's rounds: on a loaded
 * 2-core machine V8's optimizing compiler may finish a second or more after
 * a function turns hot, and a round timed before that measures the wait.
 */
const WARM_UP_MS = 1500;

/** The fastest round's µs per call of each contender, timed interleaved. */
async function interleaved(
  contenders: (() => unknown)[],
): Promise<number[]> {
  const warm = performance.now();
  while (performance.now() - warm < WARM_UP_MS) {
    for (const run of contenders) await timeBatch(run, 20);
  }
  const calls: number[] = [];
  for (const run of contenders) calls.push(await calibrate(run));
  const samples: number[][] = contenders.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, run] of contenders.entries()) {
      samples[index].push(await timeBatch(run, calls[index]));
    }
  }
  return samples.map((rounds) => Math.min(...rounds));
}

/** The same text as `assembly` renders to, as a strict Handlebars template. */
function handlebarsOf(assembly: PromptAssembly): () => string {
  const template = assembly.sections.map((section) => section.text)
    .filter((text) => text !== "").join("\n\n");
  const compiled = Handlebars.compile(template, {
    strict: true,
    noEscape: true,
  });
  const variables = assembly.variables;
  if (compiled(variables) !== renderPrompt(assembly)) {
    throw new Error("Handlebars renders W1 differently");
  }
  return () => compiled(variables);
}

/**
 * The deep copy an assembly makes of W1's tool schemas, alone: the same
 * schema objects every call, as W1's providers return them.
 */
function toolCopyOf(assembly: PromptAssembly): () => unknown {
  const schemas = assembly.tools;
  const seen = new SeenObjects();
  const source = () => "tool provider";
  return () => {
    seen.restart();
    return schemas.map((schema) => copyToolSchema(schema, source, { seen }));
  };
}

function plainJoinOf(assembly: PromptAssembly): () => string {
  const rendered = assembly.sections.map((section) =>
    renderPrompt({ ...assembly, sections: [section] })
  ).filter((text) => text !== "");
  if (rendered.join("\n\n") !== renderPrompt(assembly)) {
    throw new Error("the join renders W1 differently");
  }
  return () => rendered.join("\n\n");
}

/** A registry with `count` sections in its global layer. */
function withSections(count: number): SystemPrompt {
  const prompt = new SystemPrompt();
  for (let index = 0; index < count; index++) prompt.section(section(index));
  return prompt;
}

function section(index: number) {
  return {
    name: `rule:${index}`,
    order: (index * 7919) % 1000,
    text: `Rule ${index}: work in {{cwd}} with {{model}}.`,
  };
}

/**
 * µs per registration of 1,000 more sections into a layer of `size` (the
 * fastest of several rounds, each disposing what it registered).
 */
function registrationCost(prompt: SystemPrompt, size: number): number {
  let fastest = Infinity;
  for (let round = 0; round < 5; round++) {
    const disposers = [];
    const start = performance.now();
    for (let index = size; index < size + 1000; index++) {
      disposers.push(prompt.section(section(index)));
    }
    fastest = Math.min(fastest, (performance.now() - start) * 1000 / 1000);
    for (const dispose of disposers) dispose();
  }
  return fastest;
}

function exponent(small: number, large: number, ratio: number): number {
  return Math.log(large / small) / Math.log(ratio);
}

async function w1Rows(): Promise<string[][]> {
  const w1 = buildW1();
  const bare = buildW1({ listeners: false });
  // Three compiled copies of the template, and the fastest counts: V8 now
  // and then leaves a compiled template about 1.8 times slower for the rest
  // of the process, which would flatter every ratio against it.
  const handlebars = [];
  for (let copy = 0; copy < 3; copy++) {
    handlebars.push(handlebarsOf(await w1.assemble(W1_CONTEXT)));
  }
  const join = plainJoinOf(await bare.assemble(W1_CONTEXT));
  const copyTools = toolCopyOf(await bare.assemble(W1_CONTEXT));
  const [assembleRender, assembleBare, joined, copied, ...templates] =
    await interleaved([
      async () => renderPrompt(await w1.assemble(W1_CONTEXT)),
      () => bare.assemble(W1_CONTEXT),
      join,
      copyTools,
      ...handlebars,
    ]);
  const template = Math.min(...templates);
  return [
    [
      "W1 `assemble` + `renderPrompt` ÷ compiled strict Handlebars render",
      "≤ 1.0",
      ratio(assembleRender, template),
      `${us(assembleRender)} vs ${us(template)}`,
    ],
    [
      "  part: copying W1's 20 tool schemas (SPEC 4.4), ÷ the same render",
      "",
      ratio(copied, template),
      `${us(copied)} vs ${us(template)}`,
    ],
    [
      "W1 `assemble`, no listeners ÷ plain join of the rendered sections",
      "≤ 3",
      ratio(assembleBare, joined),
      `${us(assembleBare)} vs ${us(joined)}`,
    ],
  ];
}

async function scaleRows(): Promise<string[][]> {
  const prompts = [withSections(1000), withSections(100_000)];
  let small = Infinity;
  let large = Infinity;
  // 15 alternating pairs of five rounds each: the 100k side reads memory
  // that the caches do not hold, so a neighbour's load on the machine slows
  // it more than the 1k side; more rounds let both reach their quiet floor.
  for (let round = 0; round < 15; round++) {
    small = Math.min(small, registrationCost(prompts[0], 1000));
    large = Math.min(large, registrationCost(prompts[1], 100_000));
  }
  const variables = { cwd: "/work", model: "m" };
  const assemblies = (await Promise.all(prompts.map((p) => p.assemble())))
    .map((assembly) => ({ ...assembly, variables }));
  const assembled = await interleaved([
    () => prompts[0].assemble(),
    () => prompts[1].assemble(),
    () => copySections(assemblies[0]),
    () => copySections(assemblies[1]),
  ]);
  // One size at a time: the template cache is shared, and the large render
  // alone overflows it. Each prompt is read, as its consumer would: V8
  // joins strings lazily, and an unread prompt leaves part of the join to
  // whoever reads it.
  const [renderSmall] = await interleaved([
    () => read(renderPrompt(assemblies[0])),
  ]);
  const [renderLarge] = await interleaved([
    () => read(renderPrompt(assemblies[1])),
  ]);
  const joined = await interleaved(assemblies.map((a) => () => joinTexts(a)));
  return [
    [
      "registration at 100k ÷ at 1k (sections, one layer)",
      "≤ 2",
      ratio(large, small),
      `${us(large)} vs ${us(small)}`,
    ],
    growthRow("`assemble` growth exponent, 1k → 100k sections", assembled),
    growthRow(
      "  floor: copying the 1k / 100k assembled sections",
      assembled.slice(2),
    ),
    growthRow(
      "`renderPrompt` growth exponent, 1k → 100k distinct sections",
      [renderSmall, renderLarge],
    ),
    growthRow("  floor: plain join of the section texts", joined),
  ];
}

function growthRow(title: string, [small, large]: number[]): string[] {
  return [
    title,
    title.startsWith(" ") ? "" : "≤ 1.1",
    exponent(small, large, 100).toFixed(2),
    `${us(small)} → ${us(large)}`,
  ];
}

/**
 * What isolation alone costs an assembly: a fresh object per section, in a
 * fresh array (the assembled sections are read in order, so this is a lower
 * bound: `assemble` reads the layer's records, which are scattered).
 */
function copySections(assembly: PromptAssembly): unknown[] {
  const sections = assembly.sections;
  const copies = new Array(sections.length);
  for (let index = 0; index < sections.length; index++) {
    const { name, order, text } = sections[index];
    copies[index] = { name, order, text };
  }
  return copies;
}

/** The texts as they are, joined and read: what no renderer can beat. */
function joinTexts(assembly: PromptAssembly): number {
  const sections = assembly.sections;
  const texts = new Array(sections.length);
  for (let index = 0; index < sections.length; index++) {
    texts[index] = sections[index].text;
  }
  return read(texts.join("\n\n"));
}

/** Reads a string as a consumer does, which makes V8 flatten it. */
function read(text: string): number {
  return text.charCodeAt(text.length >> 1);
}

function ratio(a: number, b: number): string {
  return `${(a / b).toFixed(2)}×`;
}

function us(value: number): string {
  return value >= 1000
    ? `${(value / 1000).toFixed(2)} ms`
    : `${value.toFixed(1)} µs`;
}

const rows = [...await w1Rows(), ...await scaleRows()];
const header = ["ratio", "target", "this run", "times"];
const widths = header.map((title, column) =>
  Math.max(title.length, ...rows.map((row) => row[column].length))
);
const line = (cells: string[]) =>
  `| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(" | ")} |`;
console.log(line(header));
console.log(line(widths.map((width) => "-".repeat(width))));
for (const row of rows) console.log(line(row));
