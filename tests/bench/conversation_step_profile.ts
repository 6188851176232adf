/**
 * Where a step at 20,000 messages of history goes, per form (issue 49; or
 * at `--size=N` messages, each conversation taking 4 steps): a
 * CPU profile (V8's sampling profiler through `node:inspector`, every 100
 * µs) of 400 steps on the resumed 20,000-message conversation of
 * `step_forms.ts`, printed as the top frames by self time and the
 * project's functions by total time (a function counted once per sample,
 * however deep it recurses). Setup (generating and resuming the
 * recording) is not profiled.
 *
 * ```sh
 * deno run -A --no-check --v8-flags=--expose-gc tests/bench/conversation_step_profile.ts [--size=200] [form...]
 * ```
 */
import inspector from "node:inspector";
import type { LongStartForm } from "../conversation/long_recording.ts";
import {
  conversationStep,
  longPrompt,
  recordingOf,
  resumeStepped,
  STEP_FORMS,
  stepInputs,
} from "./step_forms.ts";

const stepsArg = Deno.args.find((arg) => arg.startsWith("--steps="));
const STEPS = stepsArg === undefined ? 400 : Number(stepsArg.slice(8));
/** µs between samples: finer slows the steps it samples. */
const INTERVAL = 100;
const SIZE = 20_000;
const TOP = Number(Deno.env.get("TOP") ?? 12);
const ROOT = new URL("../../", import.meta.url).href;

interface ProfileNode {
  id: number;
  callFrame: {
    functionName: string;
    url: string;
    lineNumber: number;
  };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** `post` as a promise; a timer keeps Deno waiting for the answer. */
function post<T>(
  session: inspector.Session,
  method: string,
  params: Record<string, unknown> = {},
): Promise<T> {
  const alive = setInterval(() => {}, 1_000);
  return new Promise<T>((resolve, reject) =>
    session.post(method, params, (error: Error | null, result?: object) => {
      clearInterval(alive);
      if (error) reject(error);
      else resolve(result as T);
    })
  );
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const name = functionName === "" ? "(anonymous)" : functionName;
  if (url === "") return name;
  const file = url.startsWith(ROOT)
    ? url.slice(ROOT.length)
    : url.replace(/^.*\/node_modules\//, "").replace(/^ext:/, "");
  return `${name} ${file}:${lineNumber + 1}`;
}

/** A frame of the step: the project's code, or the bench's step. */
const STEP_FRAME = / (src|adapters)\/|^conversationStep /;

/**
 * Self and total milliseconds per frame name, over the samples of the
 * steps (a stack through the project's code or the step) and of the
 * garbage collector: not the profiler's own work while it starts and
 * stops.
 */
function tally(
  profile: Profile,
): { self: Map<string, number>; total: Map<string, number>; all: number } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let all = 0;
  profile.samples.forEach((id, index) => {
    const ms = profile.timeDeltas[index] / 1000;
    const leaf = frameName(byId.get(id)!);
    const stack: string[] = [];
    for (let at: number | undefined = id; at !== undefined;) {
      stack.push(frameName(byId.get(at)!));
      at = parent.get(at);
    }
    // A step's frames: after an `await`, `request()` runs on a stack of
    // its own (from the microtask queue), without `conversationStep`.
    const stepping = stack.some((name) => STEP_FRAME.test(name));
    if (!stepping && leaf !== "(garbage collector)") return;
    all += ms;
    self.set(leaf, (self.get(leaf) ?? 0) + ms);
    for (const name of new Set(stack)) {
      total.set(name, (total.get(name) ?? 0) + ms);
    }
  });
  return { self, total, all };
}

async function profileForm(form: LongStartForm, size: number): Promise<void> {
  const prompt = longPrompt();
  const recording = await recordingOf(form, size);
  // Below the largest size, a conversation takes 4 steps, then the next
  // one (all resumed before the profile starts) does: the history stays
  // near its size.
  const perConversation = size >= SIZE ? STEPS : 4;
  const convs = Array.from(
    { length: STEPS / perConversation },
    () => resumeStepped(form, prompt, recording),
  );
  const from = convs[0].messages.length;
  // Warm: the step's code compiled before it is profiled.
  const warmInputs = stepInputs(form, size >= SIZE ? 20 : STEPS, { seed: 3 });
  let warm = resumeStepped(form, prompt, recording);
  for (const [index, input] of warmInputs.entries()) {
    if (size < SIZE && index % perConversation === 0) {
      warm = resumeStepped(form, prompt, recording);
    }
    await conversationStep(size >= SIZE ? convs[0] : warm, input);
  }
  const inputs = stepInputs(form, STEPS);
  (globalThis as { gc?: () => void }).gc?.();
  const session = new inspector.Session();
  session.connect();
  await post(session, "Profiler.enable");
  await post(session, "Profiler.setSamplingInterval", { interval: INTERVAL });
  await post(session, "Profiler.start");
  const started = performance.now();
  for (let step = 0; step < STEPS; step++) {
    const conv = convs[Math.floor(step / perConversation)];
    await conversationStep(conv, inputs[step]);
  }
  const elapsed = performance.now() - started;
  const { profile } = await post<{ profile: Profile }>(
    session,
    "Profiler.stop",
  );
  session.disconnect();
  prompt.dispose();
  const to = convs[convs.length - 1].messages.length;
  const { self, total, all } = tally(profile);
  const share = (ms: number) => `${(100 * ms / all).toFixed(1)}%`.padStart(6);
  const lines = [
    `${form}: ${STEPS} steps from ${from} to ${to} ` +
    `messages, ${(elapsed * 1000 / STEPS).toFixed(0)} µs a step; self time:`,
  ];
  for (
    const [name, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, TOP)
  ) {
    lines.push(`  ${share(ms)} ${name}`);
  }
  lines.push("  the project's functions, total time:");
  const own = [...total].filter(([name]) =>
    / (src|adapters)\//.test(name) && !name.startsWith("(")
  );
  for (const [name, ms] of own.sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
    lines.push(`  ${share(ms)} ${name}`);
  }
  console.log(lines.join("\n"));
}

const sized = Deno.args.find((arg) => arg.startsWith("--size="));
const size = sized === undefined ? SIZE : Number(sized.slice("--size=".length));
const named = STEP_FORMS.filter((form) => Deno.args.includes(form));
for (const form of named.length === 0 ? STEP_FORMS : named) {
  await profileForm(form, size);
}
