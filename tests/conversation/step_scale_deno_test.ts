/**
 * Issue 49 (SPEC 10.4), `deno task test:slow`: a conversation's step
 * (the person's question or the results, `request()`, `record()`) costs
 * its new items, not its history. For each form, the step of a
 * conversation of about 40,000 messages against the same step at about
 * 200: the ratio stays under 3 (the bench, `conversation_step_bench.ts`,
 * holds the 2× goal at 20,000), and what the long history adds to a step
 * costs at most six copies of a 40,000-item array (`slice()`, timed in
 * the same rounds; a long history makes the copies stand out of a busy
 * machine's noise): the body's own list is about two (a loop, and the
 * collection of a large object), the copies of the history 0.4 made per
 * step (`record()` and the wires: two to four spreads) show as 7 to 90.
 * Each cost is the best of 10 rounds of 10 steps, the sizes interleaved; a
 * busy machine gets three attempts. No wall-clock bound.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { repeatedRecording } from "./long_recording.ts";
import {
  conversationStep,
  longPrompt,
  recordingOf,
  resumeStepped,
  STEP_FORMS,
  type StepInput,
  stepInputs,
  type Stepped,
} from "../bench/step_forms.ts";
import type { LongStartForm } from "./long_recording.ts";

const SHORT = 200;
const LONG = 40_000;
const ROUNDS = 10;
const STEPS = 10;
const WARM_STEPS = 10;
const BOUND = { ratio: 3, copies: 6 };

/** Milliseconds per step of `steps` steps of `conv`. */
async function timeSteps(
  conv: Stepped,
  inputs: readonly StepInput[],
  from: number,
): Promise<number> {
  // What the other size left is collected before, not in, the batch.
  (globalThis as { gc?: () => void }).gc?.();
  const started = performance.now();
  for (let index = 0; index < STEPS; index++) {
    await conversationStep(conv, inputs[(from + index) % inputs.length]);
  }
  return (performance.now() - started) / STEPS;
}

/** Milliseconds per `slice()` of `items` (the best of 10). */
function timeSlice(items: readonly unknown[]): number {
  let best = Infinity;
  for (let index = 0; index < 10; index++) {
    const started = performance.now();
    const copy = items.slice();
    best = Math.min(best, performance.now() - started);
    if (copy.length !== items.length) throw new Error("not a copy");
  }
  return best;
}

interface Costs {
  readonly short: number;
  readonly long: number;
  readonly slice: number;
  readonly messages: number;
}

async function measure(
  form: LongStartForm,
  short: string,
  long: string,
): Promise<Costs> {
  const prompt = longPrompt();
  const inputs = stepInputs(form, 50);
  const largest = resumeStepped(form, prompt, long);
  let step = 0;
  for (; step < WARM_STEPS; step++) {
    await conversationStep(largest, inputs[step % inputs.length]);
  }
  const items = Array.from(largest.messages);
  const best = { short: Infinity, long: Infinity, slice: Infinity };
  for (let round = 0; round < ROUNDS; round++) {
    const small = resumeStepped(form, prompt, short);
    // The small conversation's first steps warm it, as the long one's did.
    for (let index = 0; index < 3; index++) {
      await conversationStep(small, inputs[index]);
    }
    best.short = Math.min(best.short, await timeSteps(small, inputs, step));
    best.long = Math.min(best.long, await timeSteps(largest, inputs, step));
    best.slice = Math.min(best.slice, timeSlice(items));
    step += STEPS;
  }
  return { ...best, messages: largest.messages.length };
}

describe("a conversation's step against its history (issue 49)", () => {
  for (const form of STEP_FORMS) {
    it(`${form}: the step at ${LONG} messages costs its new items, not its history`, async () => {
      const short = await recordingOf(form, SHORT);
      const steps = short.trimEnd().split("\n").length - 1;
      const resumed = resumeStepped(form, longPrompt(), short);
      const perStep = resumed.messages.length / steps;
      const long = repeatedRecording(short, Math.ceil(LONG / perStep));
      let costs: Costs | undefined;
      let ratio = Infinity;
      let copies = Infinity;
      for (let attempt = 0; attempt < 3; attempt++) {
        costs = await measure(form, short, long);
        ratio = costs.long / costs.short;
        copies = (costs.long - costs.short) / costs.slice;
        if (ratio < BOUND.ratio && copies < BOUND.copies) break;
      }
      const figures = `${form}: ${costs!.messages} messages ` +
        `${(costs!.long * 1000).toFixed(0)} µs a step, ${SHORT}: ` +
        `${(costs!.short * 1000).toFixed(0)} µs, slice() ` +
        `${(costs!.slice * 1000).toFixed(0)} µs; ratio ${ratio.toFixed(2)}, ` +
        `copies ${copies.toFixed(2)}`;
      console.log(figures);
      assert.ok(costs!.messages >= LONG, figures);
      assert.ok(ratio < BOUND.ratio, figures);
      assert.ok(copies < BOUND.copies, figures);
    });
  }
});
