/**
 * Runs a random session through one provider form, optionally resumed from
 * its own save after every recorded answer (before the tool results: the
 * resumed conversation closes the open round).
 */
import { agent } from "./helpers.ts";
import type { AnyConversation, Form } from "./forms.ts";
import { applyStep, type SessionStep } from "./session.ts";

/** Every request body of the session. */
export async function runSession(
  form: Form,
  steps: readonly SessionStep[],
  { resume }: { resume: boolean },
): Promise<unknown[]> {
  const a = agent();
  let conv: AnyConversation = form.start(a.prompt);
  const bodies: unknown[] = [];
  conv.user("Start.");
  let n = 0;
  for (const step of steps) {
    applyStep(a, step);
    if (step.say !== undefined) conv.user(step.say);
    bodies.push(await conv.request(undefined, { awaiting: step.awaiting }));
    conv.record(
      form.answer(step.calls.map((name) => ({ id: `call_${n++}`, name }))),
    );
    if (resume) conv = form.resume(a.prompt, conv.save());
    const open = step.reverse ? conv.openCalls.toReversed() : conv.openCalls;
    for (const call of open) conv.toolResult(call.id, `ran ${call.name}`);
    if (step.calls.length === 0) conv.user("Next.");
  }
  await a.prompt.dispose();
  return bodies;
}
