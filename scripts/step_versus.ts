/**
 * The conversation's step (issue 49, SPEC 10.4) of this checkout against
 * another checkout's, side by side in one process:
 *
 *   git worktree add --detach ../base main
 *   deno run -A --no-check --v8-flags=--expose-gc scripts/step_versus.ts ../base
 *
 * Both checkouts' `tests/bench/step_forms.ts` are imported (one rxjs, this
 * checkout's import map). Per form, each side steps a conversation of
 * about 200 messages (resumed fresh each round, three steps taken before
 * the timing) and one of about 20,000 (this form's 200-message recording's
 * steps repeated, resumed once, growing), and this checkout's stateless
 * user at 200 messages steps beside them; the sides and sizes are
 * interleaved, round by round, and each keeps its fastest round of 10
 * steps (the one least disturbed by other work on a shared machine). It
 * prints µs per step and the ratios the goals name: 20,000 : 200, and the
 * step at 200 ÷ the stateless path. `--forms=a,b` keeps those forms.
 *
 * @module
 */

import type * as StepForms from "../tests/bench/step_forms.ts";
import { repeatedRecording } from "../tests/conversation/long_recording.ts";
import type { LongStartForm } from "../tests/conversation/long_recording.ts";

const ROUNDS = 20;
const STEPS = 10;
const other = Deno.args.find((arg) => !arg.startsWith("--"));
if (other === undefined) {
  console.error("usage: step_versus.ts <other checkout> [--forms=a,b]");
  Deno.exit(2);
}
const only = Deno.args.find((arg) => arg.startsWith("--forms="))?.slice(8)
  .split(",");
const here: typeof StepForms = await import("../tests/bench/step_forms.ts");
const there: typeof StepForms = await import(
  new URL(`${other}/tests/bench/step_forms.ts`, `file://${Deno.cwd()}/`).href
);
const gc = (globalThis as { gc?: () => void }).gc;

/** Milliseconds per step of `STEPS` steps. */
async function timed(step: () => Promise<unknown>): Promise<number> {
  gc?.();
  const started = performance.now();
  for (let index = 0; index < STEPS; index++) await step();
  return (performance.now() - started) / STEPS;
}

interface Sided {
  readonly name: string;
  readonly module: typeof StepForms;
  readonly long: StepForms.Stepped;
  best: { short: number; long: number };
}

for (const form of here.STEP_FORMS as LongStartForm[]) {
  if (only !== undefined && !only.includes(form)) continue;
  const short = await here.recordingOf(form, 200);
  const steps = short.trimEnd().split("\n").length - 1;
  const perStep = here.resumeStepped(form, here.longPrompt(), short).messages
    .length / steps;
  const long = repeatedRecording(short, Math.ceil(20_000 / perStep));
  const inputs = here.stepInputs(form, 64);
  let cursor = 0;
  const next = () => inputs[cursor++ % inputs.length];
  const sides: Sided[] = [["this", here], [other, there]].map((
    [name, module],
  ) => {
    const prompt = (module as typeof StepForms).longPrompt();
    return {
      name: name as string,
      module: module as typeof StepForms,
      long: (module as typeof StepForms).resumeStepped(form, prompt, long),
      best: { short: Infinity, long: Infinity },
    };
  });
  const statelessPrompt = here.longPrompt();
  let stateless = Infinity;
  let messages = 0;
  for (let round = 0; round < ROUNDS + 3; round++) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      const conv = side.module.resumeStepped(
        form,
        side.module.longPrompt(),
        short,
      );
      for (let index = 0; index < 3; index++) {
        await side.module.conversationStep(conv, next());
      }
      const shortTime = await timed(() =>
        side.module.conversationStep(conv, next())
      );
      const longTime = await timed(() =>
        side.module.conversationStep(side.long, next())
      );
      if (round < 3) continue;
      side.best.short = Math.min(side.best.short, shortTime);
      side.best.long = Math.min(side.best.long, longTime);
    }
    const conv = here.resumeStepped(form, statelessPrompt, short);
    const user = here.statelessUser(
      form,
      statelessPrompt,
      conv.messages,
      conv.openCalls,
    );
    const time = await timed(() => user.step(next()));
    if (round >= 3) stateless = Math.min(stateless, time);
    messages = sides[0].long.messages.length;
  }
  const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
  console.log(
    `${form} (${messages} messages at the end; stateless at 200: ${
      us(stateless)
    })`,
  );
  for (const side of sides) {
    console.log(
      `  ${side.name.padEnd(12)} 200: ${us(side.best.short)}, 20,000: ${
        us(side.best.long)
      }; 20,000 : 200 ${(side.best.long / side.best.short).toFixed(2)}×, ` +
        `÷ stateless at 200 ${(side.best.short / stateless).toFixed(2)}×`,
    );
  }
}
