/**
 * What a conversation retains per history step (issue 49, SPEC 10.4: at
 * most 2.5× the user's own array of the same messages), per form. A
 * conversation resumed at 20 messages takes 500 steps, then 1,500 more
 * (`step_forms.ts`: the question or the results, `request()`, `record()`,
 * fresh strings each step); the heap after collection is read after each,
 * and the slope is the bytes per step. Beside it, the same 1,500 steps'
 * messages as plain JSON (a copy of the conversation's own history parsed
 * from its JSON, as an SDK parses its answers: the same messages in the
 * user's array) and the stateless user's own array
 * after the same steps (the SDK's answer objects pushed as they came).
 * Then where the conversation's bytes are, from two heap snapshots: what
 * it reaches through its data, and what goes when the recording text, the
 * kept steps or their answers are cut away.
 *
 * ```sh
 * deno run -A --no-check --v8-flags=--expose-gc tests/bench/conversation_memory.ts [--short] [--no-snapshot]
 * # one form, its figures as JSON:
 * deno run -A --no-check --v8-flags=--expose-gc tests/bench/conversation_memory.ts --form=chat
 * ```
 *
 * `--short`: the generator's short payloads (a tenth: a few words, a line
 * of code), where what a step costs besides its messages shows most.
 */
import type { SystemPrompt } from "../../mod.ts";
import type { LongStartForm } from "../conversation/long_recording.ts";
import { heapAfterGc, heapSkip } from "../memory/heap.ts";
import { heapGraph, objectNamed, reachable } from "./heap_reach.ts";
import {
  conversationStep,
  longPrompt,
  recordingOf,
  resumeStepped,
  statelessUser,
  STEP_FORMS,
  type StepInput,
  stepInputs,
  type Stepped,
} from "./step_forms.ts";

const skip = heapSkip("memory per step");
if (skip !== false) throw new Error(skip);
const short = Deno.args.includes("--short");
const snapshots = !Deno.args.includes("--no-snapshot");
const FIRST = 500;
const MEASURED = 1_500;
const CHUNK = 100;

/** `count` steps in chunks of fresh inputs (seeded from `from`). */
async function steps(
  form: LongStartForm,
  from: number,
  count: number,
  step: (input: StepInput) => Promise<unknown>,
): Promise<void> {
  for (let done = 0; done < count; done += CHUNK) {
    const inputs = stepInputs(form, CHUNK, { seed: from + done, short });
    for (const input of inputs) await step(input);
  }
}

/** Bytes the conversation reaches, whole and with each part cut away. */
async function parts(): Promise<Record<string, number>> {
  const graph = await heapGraph();
  const root = objectNamed(graph, "ConversationShell");
  const constant = ["#prompt", "#wire", "#clock"];
  const whole = reachable(graph, root, new Set(constant));
  const without = (...cut: string[]) =>
    whole.total - reachable(graph, root, new Set([...constant, ...cut])).total;
  return {
    whole: whole.total,
    strings: (whole.byType["string"] ?? 0) +
      (whole.byType["concatenated string"] ?? 0) +
      (whole.byType["sliced string"] ?? 0),
    recording: without("#saved"),
    kept: without("#steps"),
    answers: without("response"),
    reported: without("reported"),
    usage: without("usage"),
    marks: without("marks"),
    times: without("sent", "time"),
    "recording + kept": without("#saved", "#steps"),
  };
}

const kB = (bytes: number) => (bytes / 1024).toFixed(2);

/** One form's figures (bytes per step), measured in this process. */
interface Measured {
  readonly messages: number;
  readonly conversation: number;
  readonly same: number;
  readonly user: number;
  readonly parts?: Record<string, number>;
}

/** A conversation resumed at 20 messages, after `FIRST` steps. */
async function warmConversation(
  form: LongStartForm,
  prompt: SystemPrompt,
): Promise<Stepped> {
  const conv = resumeStepped(form, prompt, await recordingOf(form, 20));
  await steps(form, 0, FIRST, (input) => conversationStep(conv, input));
  return conv;
}

async function measure(form: LongStartForm): Promise<Measured> {
  const prompt = longPrompt();
  let conv: Stepped | undefined = await warmConversation(form, prompt);
  const before = await heapAfterGc();
  const first = conv.messages.length;
  await steps(form, FIRST, MEASURED, (input) => conversationStep(conv!, input));
  const conversation = (await heapAfterGc() - before) / MEASURED;
  const messages = (conv.messages.length - first) / MEASURED;

  // The text stays alive across both readings: the delta is the copy's.
  const json = JSON.stringify(conv.messages.slice(first));
  conv = undefined;
  const beforeCopy = await heapAfterGc();
  let copy: unknown = JSON.parse(json);
  const same = (await heapAfterGc() - beforeCopy) / MEASURED;
  copy = undefined;

  const user = statelessUser(form, prompt, [], []);
  await steps(form, 0, FIRST, (input) => user.step(input));
  const userBefore = await heapAfterGc();
  await steps(form, FIRST, MEASURED, (input) => user.step(input));
  const own = (await heapAfterGc() - userBefore) / MEASURED;
  user.messages.length = 0;

  let slope: Record<string, number> | undefined;
  if (snapshots) {
    // The same steps again, read from snapshots (apart: a snapshot moves
    // the heap's own accounting).
    conv = await warmConversation(form, prompt);
    const partsBefore = await parts();
    await steps(
      form,
      FIRST,
      MEASURED,
      (input) => conversationStep(conv!, input),
    );
    const partsAfter = await parts();
    slope = Object.fromEntries(
      Object.keys(partsAfter).map((
        key,
      ) => [key, (partsAfter[key] - partsBefore[key]) / MEASURED]),
    );
  }
  prompt.dispose();
  void copy;
  return { messages, conversation, same, user: own, parts: slope };
}

const only = Deno.args.find((arg) => arg.startsWith("--form="));
if (only !== undefined) {
  // A child: one form, its figures as JSON.
  const form = only.slice("--form=".length) as LongStartForm;
  console.log(JSON.stringify(await measure(form)));
} else {
  console.log(
    `Retained per history step (kB), ${
      short ? "short" : "the generator's"
    } payloads; ${MEASURED} steps after ${FIRST}, each form in a process of ` +
      `its own:`,
  );
  console.log(
    "form              messages/step  conversation  same (JSON)  user's array" +
      "  conv ÷ same  conv ÷ user",
  );
  const breakdowns: string[] = [];
  for (const form of STEP_FORMS) {
    const { code, stdout } = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--quiet",
        "--no-check",
        "--v8-flags=--expose-gc",
        new URL(import.meta.url).pathname,
        `--form=${form}`,
        ...Deno.args,
      ],
      stderr: "inherit",
    }).output();
    if (code !== 0) throw new Error(`the ${form} measurement exited ${code}`);
    const row: Measured = JSON.parse(
      new TextDecoder().decode(stdout).trim().split("\n").at(-1)!,
    );
    console.log(
      `${form.padEnd(17)} ${row.messages.toFixed(2).padStart(13)} ${
        kB(row.conversation).padStart(13)
      } ${kB(row.same).padStart(12)} ${kB(row.user).padStart(13)} ${
        (row.conversation / row.same).toFixed(2).padStart(11)
      }× ${(row.conversation / row.user).toFixed(2).padStart(10)}×`,
    );
    if (row.parts !== undefined) {
      breakdowns.push(
        `  ${form}: ${
          Object.entries(row.parts).map(([key, bytes]) => `${key} ${kB(bytes)}`)
            .join(", ")
        }`,
      );
    }
  }
  if (breakdowns.length > 0) {
    console.log(
      "Of the conversation's bytes per step (kB, heap snapshots of the same " +
        "steps): whole = all it reaches through its data; strings = of " +
        "them, string bytes; recording = the recording's text alone; kept = " +
        "the steps kept for report() alone (beyond the messages they share " +
        "with the history); of these, answers = the answers' records, " +
        "reported = the usage read (left out where the line reads it " +
        "again), usage = the answers' usage objects (the record's own), " +
        "marks, times = the two times; recording + kept = both:",
    );
    console.log(breakdowns.join("\n"));
  }
}
