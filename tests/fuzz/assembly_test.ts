/**
 * Fuzz: bad input at the assembly entry points (assemble and watch
 * contexts, renderPrompt) and change$ subscribers that throw. Each call
 * resolves, or fails with a `SystemPromptError`; the workload renders the
 * same bytes after.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { firstValueFrom } from "rxjs";
import {
  type AssembleContext,
  type PromptAssembly,
  renderPrompt,
  renderRuntimeContext,
  SystemPrompt,
} from "../../mod.ts";
import {
  anyInputArb,
  assertTyped,
  FUZZ_LABEL,
  FUZZ_OPTIONS,
  hostileArb,
  type Make,
  plain,
  recordOf,
  typedOrValue,
} from "./hostile.ts";
import {
  AGENT,
  assertWorkload,
  workloadBytes,
  workloadRegistry,
} from "./workload.ts";

const signalArb: fc.Arbitrary<Make> = fc.oneof(
  hostileArb,
  plain(fc.constant(undefined)),
  fc.constant(() => new AbortController().signal),
  fc.constant(() => AbortSignal.abort(new Error("aborted before"))),
);

const contextArb: fc.Arbitrary<Make> = fc.oneof(
  anyInputArb,
  recordOf({
    scope: fc.oneof(hostileArb, plain(fc.constantFrom(AGENT, "other"))),
    signal: signalArb,
    model: hostileArb,
  }),
);

/** Sections, tools and variables built from hostile parts. */
const assemblyArb: fc.Arbitrary<Make> = fc.oneof(
  anyInputArb,
  recordOf({
    sections: fc.oneof(
      hostileArb,
      fc.array(
        fc.oneof(
          hostileArb,
          recordOf({
            name: fc.oneof(plain(fc.string({ maxLength: 4 })), hostileArb),
            order: fc.oneof(plain(fc.integer()), hostileArb),
            text: fc.oneof(
              plain(
                fc.constantFrom(
                  "a",
                  "{{v}}",
                  "{{w}}",
                  "{{",
                  "{{x}}}}",
                  "\\{{v}}",
                  "\\\\{{v}}",
                ),
              ),
              hostileArb,
            ),
          }),
        ),
        { maxLength: 3 },
      ).map((makes) => () => makes.map((make) => make())),
    ),
    tools: hostileArb,
    variables: fc.oneof(
      hostileArb,
      recordOf({ v: fc.oneof(plain(fc.string()), hostileArb) }),
    ),
    runtimeContext: hostileArb,
  }),
);

describe(`fuzz: assembly entry points ${FUZZ_LABEL}`, () => {
  it("assemble(context) resolves or rejects typed", async () => {
    const prompt = workloadRegistry();
    const reference = await workloadBytes(prompt);
    await fc.assert(
      fc.asyncProperty(contextArb, async (make) => {
        const context = make() as AssembleContext;
        try {
          renderPrompt(await prompt.assemble(context));
        } catch (error) {
          let reason: unknown;
          try {
            reason = context.signal?.reason;
          } catch {
            // An unreadable signal: the error must be typed.
          }
          assertTyped(error, reason === undefined ? [] : [reason]);
        }
        await assertWorkload(prompt, reference);
      }),
      FUZZ_OPTIONS,
    );
    await prompt.dispose();
  });

  it("watch(context) emits a view or a typed { error } view, as assemble() decides", async () => {
    const prompt = workloadRegistry();
    const reference = await workloadBytes(prompt);
    await fc.assert(
      fc.asyncProperty(contextArb, async (make) => {
        const context = make() as AssembleContext;
        const view = await firstValueFrom(prompt.watch(context));
        const viaAssemble = await prompt.assemble(context).then(
          (assembly) => ({ prompt: renderPrompt(assembly) }),
          (error: unknown) => ({ error }),
        );
        if ("error" in view) {
          assert.ok("error" in viaAssemble, "assemble() resolved");
          let reason: unknown;
          try {
            reason = context.signal?.reason;
          } catch {
            // An unreadable signal: the error must be typed.
          }
          assertTyped(view.error, reason === undefined ? [] : [reason]);
          if ("code" in (view.error as object)) {
            assert.equal(
              (view.error as { code: unknown }).code,
              (viaAssemble.error as { code?: unknown }).code,
            );
          }
        } else {
          assert.deepEqual({ prompt: view.prompt }, viaAssemble);
        }
        await assertWorkload(prompt, reference);
      }),
      FUZZ_OPTIONS,
    );
    await prompt.dispose();
  });

  it("renderPrompt and renderRuntimeContext return a string or throw typed", async () => {
    const prompt = workloadRegistry();
    const reference = await workloadBytes(prompt);
    await fc.assert(
      fc.asyncProperty(assemblyArb, async (make) => {
        const assembly = make() as PromptAssembly;
        for (const render of [renderPrompt, renderRuntimeContext]) {
          const text = typedOrValue(() => render(assembly));
          if (text !== undefined) assert.equal(typeof text, "string");
        }
        await assertWorkload(prompt, reference);
      }),
      FUZZ_OPTIONS,
    );
    await prompt.dispose();
  });

  it("change$ subscribers that throw hostile values leave the registry and the other subscribers unharmed", async () => {
    const reported: unknown[] = [];
    await fc.assert(
      fc.asyncProperty(hostileArb, async (make) => {
        const prompt = new SystemPrompt({
          onSubscriberError: (error) => reported.push(error),
        });
        const thrown = make();
        prompt.change$.subscribe(() => {
          throw thrown;
        });
        const seen: string[] = [];
        prompt.change$.subscribe((change) => seen.push(change.type));
        prompt.section({ name: "a", order: 1, text: "A" });
        prompt.invalidate();
        assert.deepEqual(seen, ["register", "invalidate"]);
        assert.equal(reported.at(-1), thrown);
        assert.ok(renderPrompt(await prompt.assemble()).endsWith("A"));
        await prompt.dispose();
      }),
      FUZZ_OPTIONS,
    );
  });
});
