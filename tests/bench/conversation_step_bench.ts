/**
 * The conversation's step against its history (issue 49, SPEC 10.4): the
 * whole step (`user` or `toolResult`, `request()`, `record()`) of each
 * form at about 20, 200, 2,000 and 20,000 messages of history, beside the
 * stateless path at the same history (`assemble()` + the form's adapter +
 * the user's own array push; see `step_forms.ts`). The goal: the step at
 * 20,000 messages at most 2× the step at 200, and at 200 at most 2× the
 * stateless path.
 *
 * Before the table it prints, per form, the medians of interleaved rounds
 * (each round times every size and both paths, so a busy minute slows
 * all of them alike): µs per step, the step ÷ the stateless path at each
 * size, and the growth from 200 to 20,000 messages of each path; then
 * the first step after a resume at 200 messages, on its own.
 *
 * ```sh
 * deno bench -A --no-check --v8-flags=--expose-gc tests/bench/conversation_step_bench.ts
 * ```
 *
 * With `gc` exposed, the young generation is emptied after the samples
 * are resumed, before they are timed (else a small history's step pays
 * for promoting the resume's objects).
 *
 * Setup: each form's conversations are resumed recordings of
 * `tests/conversation/long_recording.ts` (the 20,000-message one is about
 * 6,000–10,000 steps, generated through the real conversation once, then
 * resumed; the time each takes is printed). A sample at 20, 200 or 2,000
 * messages is a fresh resume (not timed), its first step (timed apart:
 * it pays for the resume, once per process, where a long session pays
 * the later steps at every turn) and a few steps; at 20,000 one
 * resumed conversation takes all its steps, so it grows by a few hundred
 * messages over the run (the sizes printed are the first and the last).
 * One form is held at a time.
 */
import type { SystemPrompt } from "../../mod.ts";
import type { LongStartForm } from "../conversation/long_recording.ts";
import {
  conversationStep,
  longPrompt,
  recordingOf,
  resumeStepped,
  type StatelessUser,
  statelessUser,
  STEP_FORMS,
  STEP_SIZES,
  type StepInput,
  stepInputs,
  type Stepped,
} from "./step_forms.ts";

/** Steps timed per sample, and samples per round, at each size. */
const SAMPLE: Readonly<Record<number, { steps: number; samples: number }>> = {
  20: { steps: 2, samples: 20 },
  200: { steps: 4, samples: 10 },
  2_000: { steps: 4, samples: 6 },
  20_000: { steps: 4, samples: 4 },
};
const LARGEST = STEP_SIZES[STEP_SIZES.length - 1];
const ROUNDS = 15;
const WARM_ROUNDS = 3;

/** A form's recordings by size, the inputs its steps cycle through. */
interface FormSetup {
  readonly form: LongStartForm;
  readonly prompt: SystemPrompt;
  readonly recordings: Map<number, string>;
  readonly inputs: StepInput[];
  /** The conversation at the largest size, resumed once, growing. */
  readonly largest: Stepped;
  /**
   * The stateless user beside it, made once and growing with it (a fresh
   * one per sample would read `messages`, a copy of 20,000 messages, per
   * sample).
   */
  readonly largestUser: StatelessUser;
  /** Milliseconds: generating the recordings, resuming the largest. */
  readonly generated: number;
  readonly resumed: number;
}

async function setUp(form: LongStartForm): Promise<FormSetup> {
  const prompt = longPrompt();
  const started = performance.now();
  const recordings = new Map<number, string>();
  for (const size of STEP_SIZES) {
    recordings.set(size, await recordingOf(form, size));
  }
  const generated = performance.now() - started;
  const resumedAt = performance.now();
  const largest = resumeStepped(form, prompt, recordings.get(LARGEST)!);
  const resumed = performance.now() - resumedAt;
  return {
    form,
    prompt,
    recordings,
    inputs: stepInputs(form, 64),
    largest,
    largestUser: statelessUser(
      form,
      prompt,
      largest.messages,
      largest.openCalls,
    ),
    generated,
    resumed,
  };
}

let cursor = 0;
/** The next `count` inputs of the pool (a cycle). */
function nextInputs(setup: FormSetup, count: number): StepInput[] {
  const inputs: StepInput[] = [];
  for (let index = 0; index < count; index++) {
    inputs.push(setup.inputs[cursor++ % setup.inputs.length]);
  }
  return inputs;
}

/** A conversation at `size` messages: fresh, or the largest one. */
function conversationAt(setup: FormSetup, size: number): Stepped {
  return size === LARGEST
    ? setup.largest
    : resumeStepped(setup.form, setup.prompt, setup.recordings.get(size)!);
}

/** The stateless user holding the same history as `conv`. */
function statelessAt(setup: FormSetup, conv: Stepped): StatelessUser {
  if (conv === setup.largest) return setup.largestUser;
  return statelessUser(setup.form, setup.prompt, conv.messages, conv.openCalls);
}

const gc = (globalThis as { gc?: (options?: { type: string }) => void }).gc;

/**
 * The young generation emptied (what the samples' resumes allocated, and
 * holds, promoted): a timed step then collects its own garbage only, not
 * the resume's.
 */
function settle(): void {
  gc?.({ type: "minor" });
  gc?.({ type: "minor" });
}

/** Milliseconds per step of one round's samples at a size. */
interface Sampled {
  /** The steps after the first: [conversation, stateless]. */
  readonly steps: [number, number];
  /**
   * The first step after each sample's resume, on its own (none at the
   * largest size, which is resumed once): [conversation, stateless].
   */
  readonly first?: [number, number];
}

/**
 * One round's samples at `size`. A sample resumed fresh takes its first
 * step apart: that step pays for the resume (what a resumed state has not
 * kept yet, code and data out of the processor's caches), once per
 * process, where a long session pays the later steps at every turn.
 */
async function sampleRound(setup: FormSetup, size: number): Promise<Sampled> {
  const { steps, samples } = SAMPLE[size];
  const resumed = size !== LARGEST;
  const prepared = Array.from({ length: samples }, () => {
    const conv = conversationAt(setup, size);
    return {
      conv,
      user: statelessAt(setup, conv),
      first: resumed ? nextInputs(setup, 1)[0] : undefined,
      inputs: nextInputs(setup, steps),
    };
  });
  settle();
  let conversation = 0;
  let stateless = 0;
  let firstConversation = 0;
  let firstStateless = 0;
  for (const { conv, user, first, inputs } of prepared) {
    let started = performance.now();
    if (first !== undefined) {
      await user.step(first);
      firstStateless += performance.now() - started;
      started = performance.now();
      await conversationStep(conv, first);
      firstConversation += performance.now() - started;
      started = performance.now();
    }
    for (const input of inputs) await user.step(input);
    stateless += performance.now() - started;
    started = performance.now();
    for (const input of inputs) await conversationStep(conv, input);
    conversation += performance.now() - started;
  }
  return {
    steps: [conversation / (steps * samples), stateless / (steps * samples)],
    ...(resumed
      ? { first: [firstConversation / samples, firstStateless / samples] }
      : {}),
  };
}

const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const us = (ms: number) => (ms * 1000).toFixed(1);
const times = (ratio: number) => `${ratio.toFixed(2)}×`;

/** The printed table of one form: medians of interleaved rounds. */
async function printForm(form: LongStartForm): Promise<void> {
  const setup = await setUp(form);
  const sizes = STEP_SIZES.map((size) =>
    size === LARGEST
      ? setup.largest.messages.length
      : resumeStepped(form, setup.prompt, setup.recordings.get(size)!)
        .messages.length
  );
  const rounds = STEP_SIZES.map(() => ({
    conversation: [] as number[],
    stateless: [] as number[],
    ratio: [] as number[],
  }));
  const growth = { conversation: [] as number[], stateless: [] as number[] };
  const firstAt200 = {
    conversation: [] as number[],
    stateless: [] as number[],
  };
  const at200 = STEP_SIZES.indexOf(200);
  for (let round = 0; round < WARM_ROUNDS + ROUNDS; round++) {
    const sampled: Sampled[] = [];
    for (const size of STEP_SIZES) {
      sampled.push(await sampleRound(setup, size));
    }
    if (round < WARM_ROUNDS) continue;
    const measured = sampled.map(({ steps }) => steps);
    const [firstConversation, firstStateless] = sampled[at200].first!;
    firstAt200.conversation.push(firstConversation);
    firstAt200.stateless.push(firstStateless);
    measured.forEach(([conversation, stateless], index) => {
      rounds[index].conversation.push(conversation);
      rounds[index].stateless.push(stateless);
      rounds[index].ratio.push(conversation / stateless);
    });
    const last = measured[measured.length - 1];
    growth.conversation.push(last[0] / measured[at200][0]);
    growth.stateless.push(last[1] / measured[at200][1]);
  }
  const lines = [
    `${form}: recordings generated in ${
      (setup.generated / 1000).toFixed(1)
    } s, the ${LARGEST.toLocaleString("en")}-message one resumed in ${
      setup.resumed.toFixed(0)
    } ms; medians of ${ROUNDS} interleaved rounds`,
    "  messages     step µs  stateless µs  step ÷ stateless",
  ];
  STEP_SIZES.forEach((size, index) => {
    const shown = size === LARGEST
      ? `${sizes[index]}–${setup.largest.messages.length}`
      : String(sizes[index]);
    const { conversation, stateless, ratio } = rounds[index];
    lines.push(
      `  ${shown.padEnd(11)} ${us(median(conversation)).padStart(8)} ${
        us(median(stateless)).padStart(13)
      } ${times(median(ratio)).padStart(17)}`,
    );
  });
  lines.push(
    `  growth ${LARGEST.toLocaleString("en")} : 200 messages: step ${
      times(median(growth.conversation))
    }, stateless ${
      times(median(growth.stateless))
    } (goal: step at most 2×, and at 200 at most 2× stateless)`,
    `  the first step after a resume, at 200 messages: step ${
      us(median(firstAt200.conversation))
    } µs, stateless ${us(median(firstAt200.stateless))} µs`,
  );
  console.log(lines.join("\n"));
}

if (gc === undefined) {
  console.log(
    "(gc is not exposed: the small sizes' steps include collecting what " +
      "their resumes allocated; pass --v8-flags=--expose-gc)",
  );
}
for (const form of STEP_FORMS) await printForm(form);

/**
 * The benches below hold one form at a time (set up by its first bench,
 * outside the timing): a sample's conversation is resumed again once it
 * has taken its steps, the largest grows.
 */
let held: FormSetup | undefined;
async function holding(form: LongStartForm): Promise<FormSetup> {
  if (held?.form !== form) {
    held = undefined;
    held = await setUp(form);
  }
  return held;
}

for (const form of STEP_FORMS) {
  let user: StatelessUser | undefined;
  let used = 0;
  Deno.bench(`${form}: stateless, 200 messages`, {
    group: form,
    baseline: true,
    n: 400,
    warmup: 40,
  }, async (b) => {
    const setup = await holding(form);
    if (user === undefined || used === SAMPLE[200].steps) {
      user = statelessAt(setup, conversationAt(setup, 200));
      await user.step(nextInputs(setup, 1)[0]);
      used = 0;
      settle();
    }
    const [input] = nextInputs(setup, 1);
    b.start();
    await user.step(input);
    b.end();
    used++;
  });
  for (const size of STEP_SIZES) {
    const { steps } = SAMPLE[size];
    let conv: Stepped | undefined;
    let taken = 0;
    Deno.bench(`${form}: step, ${size.toLocaleString("en")} messages`, {
      group: form,
      n: size === LARGEST ? 100 : 400,
      warmup: size === LARGEST ? 10 : 40,
    }, async (b) => {
      const setup = await holding(form);
      if (conv === undefined || taken === steps) {
        conv = conversationAt(setup, size);
        // The first step after a resume is the table's own line.
        if (size !== LARGEST) {
          await conversationStep(conv, nextInputs(setup, 1)[0]);
        }
        taken = 0;
        settle();
      }
      const [input] = nextInputs(setup, 1);
      b.start();
      await conversationStep(conv, input);
      b.end();
      taken++;
    });
  }
}
