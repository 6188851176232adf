/**
 * Fuzz: hostile input at the cache-layout entry points of 0.3:
 * `runtimeContextUpdate`, `lintCache`, `registrar.toolGate` (the gate
 * itself, what it returns, and listeners that set `activeTools`) and
 * `diffAssemblies`' `activeTools`. Each call returns, or throws a
 * `SystemPromptError` with a code; the reference workload renders the same
 * bytes after.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  diffAssemblies,
  lintCache,
  type PromptAssembly,
  runtimeContextUpdate,
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
import { assertWorkload, workloadBytes, workloadRegistry } from "./workload.ts";

/** Text that looks volatile, and text built to make a regex backtrack. */
const textArb: fc.Arbitrary<Make> = plain(
  fc.oneof(
    fc.constantFrom(
      "a",
      "{{v}}",
      "",
      "2026-12-02T10:00:00Z",
      "https://x.test/a?b=c",
      "/tmp/x",
      "123e4567-e89b-12d3-a456-426614174000",
      "http://".repeat(5_000),
      "0a".repeat(20_000),
      "2026-12-0".repeat(3_000),
    ),
    fc.string({
      unit: fc.constantFrom("a", "1", "-", ":", "/", "?", "=", "T", " ", "f"),
      maxLength: 60,
    }),
  ),
);

const sectionArb: fc.Arbitrary<Make> = fc.oneof(
  { weight: 1, arbitrary: hostileArb },
  {
    weight: 4,
    arbitrary: recordOf({
      name: fc.oneof(plain(fc.constantFrom("a", "b", "memory")), hostileArb),
      order: fc.oneof(plain(fc.integer()), hostileArb),
      text: fc.oneof(textArb, hostileArb),
      stability: fc.oneof(
        plain(fc.constantFrom(undefined, "agent", "volatile", "stable", "x")),
        hostileArb,
      ),
      cacheBreakpoint: fc.oneof(plain(fc.boolean()), hostileArb),
    }),
  },
);

const toolArb: fc.Arbitrary<Make> = fc.oneof(
  { weight: 1, arbitrary: hostileArb },
  {
    weight: 4,
    arbitrary: recordOf({
      name: fc.oneof(
        plain(fc.constantFrom("read", "files.read", "", "a".repeat(70))),
        hostileArb,
      ),
      description: fc.oneof(textArb, hostileArb),
      parameters: fc.oneof(
        plain(fc.constantFrom({}, { type: "object" }, { d: "2026-12-02" })),
        hostileArb,
      ),
    }),
  },
);

function listOf(entry: fc.Arbitrary<Make>): fc.Arbitrary<Make> {
  return fc.oneof(
    { weight: 1, arbitrary: hostileArb },
    {
      weight: 4,
      arbitrary: fc.array(entry, { maxLength: 4 }).map((makes) => () =>
        makes.map((make) => make())
      ),
    },
  );
}

const namesArb: fc.Arbitrary<Make> = fc.oneof(
  hostileArb,
  plain(fc.constantFrom(undefined, [], ["read"], ["read", "nope"], [1])),
);

const assemblyArb: fc.Arbitrary<Make> = fc.oneof(
  { weight: 1, arbitrary: hostileArb },
  {
    weight: 6,
    arbitrary: recordOf({
      sections: listOf(sectionArb),
      tools: listOf(toolArb),
      variables: fc.oneof(
        hostileArb,
        recordOf({ v: fc.oneof(textArb, hostileArb) }),
      ),
      runtimeContext: listOf(sectionArb),
      toolStability: fc.oneof(
        hostileArb,
        recordOf({
          read: plain(fc.constantFrom("agent", "volatile", "x", undefined)),
        }),
      ),
      activeTools: namesArb,
    }),
  },
);

const optionsArb: fc.Arbitrary<Make> = fc.oneof(
  hostileArb,
  recordOf({
    header: fc.oneof(textArb, hostileArb),
    ignore: fc.oneof(
      hostileArb,
      plain(fc.constantFrom(["VOLATILE_CONTENT"], [7], "VOLATILE_CONTENT")),
    ),
  }),
);

describe(`fuzz: cache-layout entry points ${FUZZ_LABEL}`, () => {
  it("runtimeContextUpdate returns a string or undefined, or throws typed", async () => {
    const prompt = workloadRegistry();
    const reference = await workloadBytes(prompt);
    await fc.assert(
      fc.asyncProperty(
        fc.option(assemblyArb, { nil: undefined }),
        assemblyArb,
        fc.option(optionsArb, { nil: undefined }),
        async (previous, current, options) => {
          const update = typedOrValue(() =>
            runtimeContextUpdate(
              previous?.() as PromptAssembly | undefined,
              current() as PromptAssembly,
              options?.() as never,
            )
          );
          if (update !== undefined) assert.equal(typeof update, "string");
          await assertWorkload(prompt, reference);
        },
      ),
      FUZZ_OPTIONS,
    );
    await prompt.dispose();
  });

  it("lintCache returns well-formed findings in wire order, or throws typed", async () => {
    const prompt = workloadRegistry();
    const reference = await workloadBytes(prompt);
    await fc.assert(
      fc.asyncProperty(
        assemblyArb,
        fc.option(optionsArb, { nil: undefined }),
        async (assembly, options) => {
          const findings = typedOrValue(() =>
            lintCache(assembly() as PromptAssembly, options?.() as never)
          );
          if (findings !== undefined) {
            let sawSection = false;
            for (const { code, severity, entry, message } of findings) {
              assert.match(code, /^[A-Z_]+$/);
              assert.ok(severity === "warning" || severity === "error");
              assert.equal(severity === "error", code === "INVALID_TOOL_NAME");
              assert.match(entry, /^(section|tool):/);
              assert.equal(typeof message, "string");
              // Tools come first on the wire.
              if (entry.startsWith("section:")) sawSection = true;
              else assert.equal(sawSection, false);
            }
          }
          await assertWorkload(prompt, reference);
        },
      ),
      FUZZ_OPTIONS,
    );
    await prompt.dispose();
  });

  it("diffAssemblies with hostile activeTools returns or throws typed", async () => {
    await fc.assert(
      fc.property(namesArb, namesArb, (before, after) => {
        const side = (make: Make) =>
          ({
            sections: [],
            tools: [{ name: "read", description: "", parameters: {} }],
            variables: {},
            activeTools: make(),
          }) as PromptAssembly;
        const diff = typedOrValue(() =>
          diffAssemblies(side(before), side(after))
        );
        if (diff !== undefined) {
          assert.ok(Array.isArray(diff.activeTools.added));
          assert.ok(Array.isArray(diff.activeTools.removed));
        }
      }),
      FUZZ_OPTIONS,
    );
  });

  it("toolGate: a hostile gate or answer is refused at registration or rejects the assembly typed", async () => {
    const prompt = workloadRegistry();
    const reference = await workloadBytes(prompt);
    const answerArb = fc.oneof(anyInputArb, namesArb);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          anyInputArb,
          answerArb.map((make) => () => () => make()),
        ),
        async (make) => {
          const plugin = prompt.fork({ label: "fuzz" });
          const registered = typedOrValue(() =>
            plugin.toolGate(make() as never)
          );
          if (registered !== undefined) {
            try {
              const assembly = await prompt.assemble();
              const active = assembly.activeTools;
              if (active !== undefined) {
                const tools = assembly.tools.map((tool) => tool.name);
                assert.ok(active.every((name) => tools.includes(name)));
              }
            } catch (error) {
              assertTyped(error);
            }
          }
          await plugin.dispose();
          await assertWorkload(prompt, reference);
        },
      ),
      FUZZ_OPTIONS,
    );
    await prompt.dispose();
  });

  it("listeners that set hostile activeTools reject typed; the registry is unharmed", async () => {
    const prompt = new SystemPrompt();
    prompt.tools(() => ({
      schemas: [{ name: "read", description: "", parameters: {} }],
    }));
    await fc.assert(
      fc.asyncProperty(namesArb, async (make) => {
        const dispose = prompt.onAssemble((assembly) => {
          (assembly as { activeTools?: unknown }).activeTools = make();
          return assembly;
        });
        try {
          const { activeTools } = await prompt.assemble();
          if (activeTools !== undefined) {
            assert.ok(activeTools.every((name) => name === "read"));
          }
        } catch (error) {
          assertTyped(error);
        }
        await dispose();
        assert.equal("activeTools" in await prompt.assemble(), false);
      }),
      FUZZ_OPTIONS,
    );
    await prompt.dispose();
  });
});
