/**
 * Fuzz: bad input at every registration entry point (constructor config,
 * section, variable, tools, toolGate, onAssemble, effect, fork, scope),
 * with revoked Proxies and Proxy functions whose `name` getter throws. Each call
 * either succeeds or throws a `SystemPromptError`; an assembly over what it
 * registered resolves or rejects typed; and once the attacking registrar is
 * disposed, the reference workload renders the same bytes.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type AssembleListener,
  type EffectBody,
  type PromptRuntimeContext,
  type PromptSection,
  type Registrar,
  renderPrompt,
  type ScopeKey,
  SystemPrompt,
  type SystemPromptConfig,
  type ToolProvider,
  type VariableProvider,
} from "../../mod.ts";
import {
  anyInputArb,
  assertTyped,
  FUZZ_LABEL,
  FUZZ_OPTIONS,
  hostileArb,
  hostileFunctionArb,
  type Make,
  plain,
  recordOf,
  typedOrValue,
  userCodeArb,
} from "./hostile.ts";
import { assertWorkload, workloadBytes, workloadRegistry } from "./workload.ts";

/** Why a bounded assembly was stopped: a listener or body hung. */
const HANG = new Error("the fuzz case stopped a hanging assembly");

/**
 * Assembles (globally and for `scope`) and renders; a rejection must be
 * typed or one of `passedThrough`. Stops after a macrotask, so user code
 * that never settles cannot hang the suite.
 */
async function assembleBounded(
  prompt: SystemPrompt,
  options: { scope?: ScopeKey; passedThrough?: readonly unknown[] } = {},
): Promise<void> {
  const passedThrough = [HANG, ...(options.passedThrough ?? [])];
  for (const scope of [undefined, options.scope]) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(HANG), 0);
    try {
      const assembly = await prompt.assemble({
        signal: controller.signal,
        ...(scope === undefined ? {} : { scope }),
      });
      typedOrValue(() => renderPrompt(assembly));
    } catch (error) {
      assertTyped(error, passedThrough);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * Runs `attack` against a fresh child of a shared workload registry for
 * every generated input, then disposes the child and checks the workload.
 * `attack` returns the values SPEC passes on as they are (what a listener
 * throws).
 */
async function fuzzRegistrar<T>(
  arbitrary: fc.Arbitrary<T>,
  attack: (plugin: Registrar, input: T) => unknown[] | void,
): Promise<void> {
  const prompt = workloadRegistry();
  const reference = await workloadBytes(prompt);
  await fc.assert(
    fc.asyncProperty(arbitrary, async (input) => {
      const plugin = prompt.fork({ label: "fuzz" });
      const passedThrough = attack(plugin, input) ?? [];
      await assembleBounded(prompt, { scope: "fuzz", passedThrough });
      await plugin.dispose();
      await assertWorkload(prompt, reference);
    }),
    FUZZ_OPTIONS,
  );
  await prompt.dispose();
}

const nameArb = fc.oneof(
  plain(
    fc.constantFrom("fuzz", "rules", "deployment:persona", "harness:identity"),
  ),
  hostileArb,
);

/** User code as a provider: plain, with a throwing `name`, or revoked. */
const textFunctionArb: fc.Arbitrary<Make> = hostileFunctionArb;

const sectionArb = fc.oneof(
  anyInputArb,
  recordOf({
    name: nameArb,
    order: fc.oneof(plain(fc.integer({ min: -200, max: 200 })), hostileArb),
    text: fc.oneof(
      plain(
        fc.constantFrom("plain", "{{cwd}}", "{{missing}}", "{{ bad }}", ""),
      ),
      hostileArb,
      textFunctionArb,
    ),
    cacheBreakpoint: hostileArb,
  }),
);

const schemaArb = fc.oneof(
  hostileArb,
  recordOf({
    name: fc.oneof(
      plain(fc.constantFrom("shell", "fuzz_tool", "")),
      hostileArb,
    ),
    description: fc.oneof(plain(fc.constant("d")), hostileArb),
    parameters: fc.oneof(
      plain(fc.jsonValue({ maxDepth: 2 })),
      hostileArb,
      hostileArb.map((make) => () => ({ type: "object", nested: make() })),
    ),
  }),
);

const toolResultArb = fc.oneof(
  hostileArb,
  recordOf({
    schemas: fc.oneof(
      fc.array(schemaArb, { maxLength: 3 }).map((makes) => () =>
        makes.map((make) => make())
      ),
      hostileArb,
    ),
    knownNames: fc.oneof(
      plain(fc.array(fc.string(), { maxLength: 2 })),
      hostileArb,
    ),
  }),
);

describe(`fuzz: registration entry points ${FUZZ_LABEL}`, () => {
  it("new SystemPrompt(config) constructs or throws typed; what it builds assembles or rejects typed", async () => {
    const configArb = fc.oneof(
      hostileArb,
      recordOf({
        persona: fc.oneof(
          plain(fc.constantFrom("p", "{{x}}", "{{")),
          hostileArb,
        ),
        toolOrder: fc.oneof(
          plain(fc.array(fc.string(), { maxLength: 3 })),
          plain(fc.constant(["a", "<unlisted-tools>"])),
          hostileArb,
          hostileArb.map((make) => () => [make(), "<unlisted-tools>"]),
        ),
        includeHarnessIdentity: fc.oneof(plain(fc.boolean()), hostileArb),
        onSubscriberError: fc.oneof(hostileFunctionArb, hostileArb),
      }),
    );
    const workload = workloadRegistry();
    const reference = await workloadBytes(workload);
    await fc.assert(
      fc.asyncProperty(configArb, async (config) => {
        const prompt = typedOrValue(() =>
          new SystemPrompt(config() as SystemPromptConfig)
        );
        if (prompt !== undefined) {
          await assembleBounded(prompt);
          await prompt.dispose();
        }
        await assertWorkload(workload, reference);
      }),
      FUZZ_OPTIONS,
    );
    await workload.dispose();
  });

  it("section(input) registers or throws typed", async () => {
    await fuzzRegistrar(sectionArb, (plugin, input) => {
      typedOrValue(() => plugin.section(input() as PromptSection));
    });
  });

  it("variable(name, provider) registers or throws typed", async () => {
    const providerArb = fc.oneof(
      hostileArb,
      textFunctionArb,
      plain(fc.constant(() => "value")),
    );
    await fuzzRegistrar(
      fc.tuple(
        fc.oneof(plain(fc.constantFrom("cwd", "fuzz")), hostileArb),
        providerArb,
      ),
      (plugin, [name, provider]) => {
        typedOrValue(() =>
          plugin.variable(name() as string, provider() as VariableProvider)
        );
      },
    );
  });

  it("tools(provider) registers or throws typed, whatever the provider returns or throws", async () => {
    const providerArb = fc.oneof(
      hostileArb,
      textFunctionArb,
      toolResultArb.map((make) => () => () => make()),
    );
    await fuzzRegistrar(providerArb, (plugin, provider) => {
      typedOrValue(() => plugin.tools(provider() as ToolProvider));
    });
  });

  it("onAssemble(listener) registers or throws typed; what a listener throws or rejects with is passed on", async () => {
    const listenerArb: fc.Arbitrary<Make<{ run: unknown; value: unknown }>> = fc
      .oneof(
        hostileArb.map((make) => () => ({ run: make(), value: undefined })),
        userCodeArb,
        // The same code behind a Proxy whose `name` getter throws.
        userCodeArb.map((make) => () => {
          const { run, value } = make();
          return { run: throwingNameOf(run), value };
        }),
        hostileArb.map((make) => () => ({
          value: undefined,
          run: (
            assembly: { variables: unknown },
            _context: unknown,
            next: () => Promise<unknown>,
          ) => {
            assembly.variables = make();
            return next();
          },
        })),
      );
    await fuzzRegistrar(listenerArb, (plugin, make) => {
      const { run, value } = make();
      typedOrValue(() => plugin.onAssemble(run as AssembleListener));
      return [value];
    });
  });

  it("effect(body) builds or throws typed (or the body's own error)", async () => {
    const bodyArb: fc.Arbitrary<Make<{ run: unknown; value: unknown }>> = fc
      .oneof(
        hostileArb.map((make) => () => ({ run: make(), value: undefined })),
        userCodeArb,
        hostileArb.map((make) => () => ({
          value: undefined,
          run: function* () {
            yield make();
          },
        })),
        userCodeArb.map((make) => () => {
          const code = make();
          return {
            value: code.value,
            run: function* () {
              yield code.run;
            },
          };
        }),
      );
    const prompt = workloadRegistry();
    const reference = await workloadBytes(prompt);
    const original = console.error;
    // Async failures nobody awaits are reported with console.error (README).
    console.error = () => {};
    try {
      await fc.assert(
        fc.asyncProperty(bodyArb, async (make) => {
          const { run, value } = make();
          const plugin = prompt.fork({ label: "fuzz" });
          try {
            plugin.effect(run as EffectBody);
          } catch (error) {
            assertTyped(error, [value]);
          }
          const disposed = plugin.dispose().catch(() => {});
          // A teardown that never settles keeps dispose() pending (README):
          // the case bounds its wait.
          await Promise.race([disposed, macrotask()]);
          assert.equal(plugin.disposed, true);
          await assertWorkload(prompt, reference);
        }),
        FUZZ_OPTIONS,
      );
    } finally {
      console.error = original;
    }
    // Hanging teardowns keep the registry's dispose() pending for ever.
    prompt.dispose().catch(() => {});
  });

  it("toolGate(gate) registers or throws typed, whatever the gate answers or throws", async () => {
    const gateArb = fc.oneof(
      hostileArb,
      hostileFunctionArb,
      hostileArb.map((make) => () => () => make()),
    );
    await fuzzRegistrar(gateArb, (plugin, gate) => {
      typedOrValue(() => plugin.toolGate(gate() as never));
    });
  });

  it("runtimeContext(entry) registers or throws typed", async () => {
    await fuzzRegistrar(sectionArb, (plugin, input) => {
      typedOrValue(() =>
        plugin.runtimeContext(input() as PromptRuntimeContext)
      );
    });
  });

  it("bindScope(child, parent) binds or throws typed", async () => {
    const keyArb = fc.oneof(hostileArb, plain(fc.constantFrom("fuzz", "p")));
    await fuzzRegistrar(fc.tuple(keyArb, keyArb), (plugin, [child, parent]) => {
      typedOrValue(() =>
        plugin.bindScope(child() as ScopeKey, parent() as ScopeKey)
      );
    });
  });

  it("fork(options) and scope(key, options) make a registrar or throw typed", async () => {
    await fuzzRegistrar(
      fc.tuple(
        fc.boolean(),
        hostileArb,
        fc.oneof(hostileArb, plain(fc.constant(undefined))),
      ),
      (plugin, [scoped, key, options]) => {
        const child = typedOrValue(() =>
          scoped
            ? plugin.scope(key() as ScopeKey, options() as { label?: string })
            : plugin.fork(options() as { label?: string })
        );
        typedOrValue(() =>
          child?.section({ name: "fuzz:child", order: 5, text: "child" })
        );
      },
    );
  });
});

function throwingNameOf<F extends object>(fn: F): F {
  return new Proxy(fn, {
    get: (target, key, receiver) => {
      if (key === "name") throw new Error("hostile name getter");
      return Reflect.get(target, key, receiver);
    },
  });
}

function macrotask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
