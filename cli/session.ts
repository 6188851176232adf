/**
 * Session modules for `rxprompt simulate` and `deno task bench:cache`: the
 * loader (a default export `{ prompt, steps, dispose? }` or a possibly
 * async function returning it) and the runner, which runs every step once,
 * assembles the step's scope, and builds each way's request bodies from
 * the same assembly.
 *
 * @module
 */

import type { PromptAssembly } from "../mod.ts";
import type {
  CacheRequest,
  CacheSession,
  FormId,
  SessionMessage,
  SessionRequest,
} from "../adapters/cache/mod.ts";
import { CliError, describeError } from "./cli_error.ts";
import { isSystemPrompt } from "./config.ts";
import { within, withSignal } from "./deadline.ts";
import { node } from "./node.ts";
import { plainMessages, WAY_FORMS } from "./readme_way.ts";
import type { Way } from "./way_types.ts";
import { runStep } from "./step_result.ts";

/** The time between two steps that give none, in ms. */
export const STEP_INTERVAL = 10_000;

/** One step as run: what it sent and each way's bodies. */
export interface RunStep {
  readonly index: number;
  readonly thread: string;
  readonly time: number;
  readonly assembly: PromptAssembly;
  /** The same thread's previous assembly. */
  readonly previous?: PromptAssembly;
  /** The session's previous assembly (any thread). */
  readonly before?: PromptAssembly;
  readonly messages: readonly SessionMessage[];
  /** Way name → form id → body (a way may build no body for a form). */
  readonly bodies: ReadonlyMap<string, Partial<Record<FormId, unknown>>>;
}

/**
 * Imports the session module at `path` and reads its default export,
 * within `timeoutMs` (default 10 s).
 *
 * @throws {CliError} for a missing file, a module that is not a session,
 * or one that does not finish loading in time
 */
export async function loadSession(
  path: string,
  options: { timeoutMs?: number } = {},
): Promise<CacheSession> {
  const file = node.resolve(path);
  try {
    await node.stat(file);
  } catch {
    throw new CliError(`session ${path} not found`);
  }
  return await within(
    {
      timeoutMs: options.timeoutMs,
      what: `session ${path}`,
      verb: "did not finish loading",
      why: "its import or its default export never settled",
    },
    () => importSession(file, path),
  );
}

async function importSession(
  file: string,
  path: string,
): Promise<CacheSession> {
  let module: unknown;
  try {
    module = await import(node.pathToFileURL(file).href);
  } catch (error) {
    throw new CliError(
      `session ${path} failed to load: ${describeError(error)}`,
    );
  }
  return await readSession(module, path);
}

const EXPECTED = "export default { prompt, steps, dispose? } (a SystemPrompt " +
  "and an array of step functions) or a (possibly async) function " +
  "returning it";

/**
 * Reads a session module's namespace.
 *
 * @throws {CliError} naming `source` and what would be valid
 */
export async function readSession(
  module: unknown,
  source: string,
): Promise<CacheSession> {
  let value = (module as { default?: unknown } | null)?.default;
  try {
    if (typeof value === "function") value = await value();
  } catch (error) {
    throw new CliError(
      `session ${source}: its default export function failed: ${
        describeError(error)
      }`,
    );
  }
  if (typeof value !== "object" || value === null) {
    throw new CliError(`session ${source}: ${EXPECTED}`);
  }
  const { prompt, steps, dispose } = value as Record<string, unknown>;
  if (!isSystemPrompt(prompt)) {
    throw new CliError(
      `session ${source}: prompt is not a SystemPrompt; ${EXPECTED}`,
    );
  }
  if (
    !Array.isArray(steps) || steps.length === 0 ||
    !steps.every((step) => typeof step === "function")
  ) {
    throw new CliError(
      `session ${source}: steps must be a non-empty array of functions; ` +
        EXPECTED,
    );
  }
  if (dispose !== undefined && typeof dispose !== "function") {
    throw new CliError(`session ${source}: dispose must be a function`);
  }
  return value as CacheSession;
}

/** Options of {@linkcode runSession}. */
export interface RunOptions {
  limit?: number;
  volatileSections?: readonly string[];
  /** How long each step, its assembly and the teardown may take (10 s). */
  timeoutMs?: number;
  /** The session's path, for the time limit's line. */
  source?: string;
  /**
   * A harness restart before step `at`: the session is disposed and
   * `session()` builds it afresh (a fresh registry), its first `at` steps
   * run again to bring it to the same point (their requests are not
   * built), and each way resumes its saved state.
   */
  restart?: { at: number; session: () => Promise<CacheSession> };
  /**
   * A harness resumed in another process at step `at`: the steps before it
   * only run their step functions (no assembly, no request, no `RunStep`),
   * and each way resumes from the memory in `states` (as `readme_way.ts`'s
   * `savedState` wrote it).
   */
  resumeAt?: number;
  /**
   * The ways' memory, keyed by way, form and thread (`wayStateKey`); a map
   * the caller gives to read it after the run, or to resume from it.
   */
  states?: Map<string, Record<string, unknown>>;
}

/** The key of a way's memory for one form and thread in `states`. */
export function wayStateKey(
  way: string,
  form: FormId,
  thread: string,
): string {
  return `${way}\u0000${form}\u0000${thread}`;
}

/**
 * Runs `session`'s steps (at most `limit`), building every way's bodies for
 * every form; disposes the session at the end. Each step function, each
 * assembly (aborted through its signal) and the teardown settle within
 * `timeoutMs`.
 *
 * @throws {CliError} when a step or an assembly fails or does not settle
 * in time, naming the step
 */
export async function runSession(
  first: CacheSession,
  ways: Readonly<Record<string, Way>>,
  options: RunOptions = {},
): Promise<RunStep[]> {
  const { timeoutMs } = options;
  let session = first;
  const label = options.source === undefined
    ? "the session"
    : `session ${options.source}`;
  const volatileSections = new Set(options.volatileSections ?? []);
  const steps: RunStep[] = [];
  const last = new Map<string, PromptAssembly>();
  const states = options.states ?? new Map<string, Record<string, unknown>>();
  let time = -STEP_INTERVAL;
  let failed = false;
  try {
    const count = Math.min(session.steps.length, options.limit ?? Infinity);
    const runOne = (index: number) =>
      within(
        {
          timeoutMs,
          what: `${label}: step ${index}`,
          why: "its step function never answered",
        },
        () => runStep(session.steps[index], index),
      );
    for (let index = 0; index < count; index++) {
      let request: SessionRequest;
      let assembly: PromptAssembly;
      const replayed = options.resumeAt !== undefined &&
        index < options.resumeAt;
      const restarted = options.restart?.at === index && index > 0;
      const resumed = restarted ||
        (options.resumeAt === index && index > 0);
      if (restarted) {
        await disposeWithin(session, { timeoutMs, label });
        session = await options.restart!.session();
        try {
          for (let replayed = 0; replayed < index; replayed++) {
            await runOne(replayed);
          }
        } catch (error) {
          if (error instanceof CliError) throw error;
          throw new CliError(
            `replaying the session up to step ${index} failed: ${
              describeError(error)
            }`,
          );
        }
      }
      try {
        request = await runOne(index);
        const context = request.scope === undefined
          ? { ...request.context }
          : { ...request.context, scope: request.scope };
        assembly = await within(
          {
            timeoutMs,
            what: `${label}: the assembly of step ${index}`,
            why: "a provider or a listener never answered; it was aborted",
          },
          (signal) => session.prompt.assemble(withSignal(context, signal)),
        );
      } catch (error) {
        if (error instanceof CliError) throw error;
        throw new CliError(`step ${index} failed: ${describeError(error)}`);
      }
      const thread = request.thread ?? "main";
      time = request.time ?? time + STEP_INTERVAL;
      if (replayed) {
        // Before the resume point: the thread's last assembly is what its
        // request in flight was built from.
        last.set(thread, assembly);
        continue;
      }
      const previous = last.get(thread);
      const bodies = new Map<string, Partial<Record<FormId, unknown>>>();
      const messages = plainMessages(request.messages);
      for (const [name, way] of Object.entries(ways)) {
        const build = (form: FormId) =>
          way({
            form,
            thread,
            assembly,
            previous,
            messages,
            request,
            volatileSections,
            state: stateOf(states, wayStateKey(name, form, thread)),
            ...(resumed ? { resumed } : {}),
          });
        try {
          const built: Partial<Record<FormId, unknown>> = {};
          for (const form of WAY_FORMS) {
            const body = await build(form);
            if (body !== undefined) built[form] = body;
          }
          bodies.set(name, built);
        } catch (error) {
          throw new CliError(
            `step ${index}: the ${name} way failed: ${describeError(error)}`,
          );
        }
      }
      steps.push({
        index,
        thread,
        time,
        assembly,
        previous,
        before: steps.at(-1)?.assembly,
        messages,
        bodies,
      });
      last.set(thread, assembly);
    }
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    await disposeWithin(session, { timeoutMs, label }).catch((error) => {
      // A step's own failure says more than a teardown after it.
      if (!failed) throw error;
    });
  }
  return steps;
}

/** The session's own teardown, then its registry's, each within the limit. */
async function disposeWithin(
  session: CacheSession,
  { timeoutMs, label }: { timeoutMs: number | undefined; label: string },
): Promise<void> {
  await within(
    { timeoutMs, what: `${label}: its dispose()` },
    () => session.dispose?.(),
  );
  await within(
    { timeoutMs, what: `${label}: the registry's dispose()` },
    () => session.prompt.dispose(),
  );
}

function stateOf(
  states: Map<string, Record<string, unknown>>,
  key: string,
): Record<string, unknown> {
  let state = states.get(key);
  if (state === undefined) states.set(key, state = {});
  return state;
}

/** The requests one way sends in one form, for `simulateCache`. */
export function requestsOf(
  steps: readonly RunStep[],
  way: string,
  form: FormId,
): CacheRequest[] {
  return steps.map((step) => {
    const body = step.bodies.get(way)?.[form];
    if (body === undefined) {
      throw new CliError(`the ${way} way builds no ${form} request body`);
    }
    return { body, time: step.time, thread: step.thread };
  });
}
