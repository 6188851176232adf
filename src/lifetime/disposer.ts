/**
 * The public shapes of the lifetime room: the exact disposer a registration
 * returns, the teardowns an effect yields, and the effect body itself.
 *
 * @module
 */

/**
 * The function a registration returns: calling it removes exactly that
 * registration. Idempotent (every call returns the same promise), awaitable,
 * and `AsyncDisposable`, so `await using` and `AsyncDisposableStack#use`
 * work. Never wrap it before yielding it from an effect: the effect adopts
 * the exact function.
 *
 * @example
 * ```ts
 * import { SystemPrompt } from "@rxprompt/system-prompt";
 *
 * const prompt = new SystemPrompt();
 * {
 *   await using _rules = prompt.section({ name: "rules", order: 10, text: "Be brief." });
 *   // "rules" is part of every assembly here
 * }
 * // and removed here
 * ```
 */
export type Disposer = (() => Promise<void>) & AsyncDisposable;

/**
 * A teardown an effect may yield: any function, possibly async. Exact
 * disposers are teardowns too, and are adopted rather than wrapped.
 *
 * @example
 * ```ts
 * import type { Teardown } from "@rxprompt/system-prompt";
 *
 * const closeWatcher: Teardown = async () => {
 *   await Promise.resolve(); // e.g. close a file watcher
 * };
 * ```
 */
export type Teardown = () => unknown;

/**
 * The body of an effect: a generator function, sync or async, that yields
 * teardowns. Yielded exact disposers are adopted; other functions are
 * collected as they are. `signal` aborts when the effect is disposed: a
 * body that awaits must stop on it, because disposal waits for the body to
 * stop before it runs the collected teardowns.
 *
 * @example
 * ```ts
 * import type { EffectBody } from "@rxprompt/system-prompt";
 *
 * const body: EffectBody = async function* (signal) {
 *   const timer = setInterval(() => {}, 1000);
 *   yield () => clearInterval(timer);
 *   await new Promise((resolve) => signal.addEventListener("abort", resolve));
 * };
 * ```
 */
export type EffectBody = (
  signal: AbortSignal,
) =>
  | Iterator<Teardown, unknown, undefined>
  | AsyncIterator<Teardown, unknown, undefined>;
