/**
 * Fuzz: hostile token budgets (SPEC 8.9) in the config, in `assemble()`'s
 * options and in sections' `priority` and `required`. Every call either
 * works or fails with a `SystemPromptError`; a budget that is accepted and
 * answered by a sound counter gives a prompt that fits.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  countAssemblyTokens,
  type PromptAssembly,
  SystemPrompt,
  type SystemPromptConfig,
  SystemPromptError,
} from "../../mod.ts";
import {
  anyInputArb,
  assertTyped,
  FUZZ_OPTIONS,
  FUZZ_SEED,
  hostileArb,
  hostileFunctionArb,
  type Make,
  plain,
  recordOf,
  typedOrValue,
} from "./hostile.ts";

const chars = (text: string): number => text.length;

/** Sound counters, and hostile ones (throwing, returning anything). */
const counterArb: fc.Arbitrary<Make> = fc.oneof(
  { weight: 2, arbitrary: plain(fc.constant(chars)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(0, 1.5, -1, NaN, "3", 2 ** 53).map((value) => {
      const make = () => () => value;
      return Object.assign(make, { toString: () => `() => ${value}` });
    }),
  },
  { weight: 1, arbitrary: hostileFunctionArb },
  { weight: 1, arbitrary: hostileArb },
);

const maxTokensArb: fc.Arbitrary<Make> = fc.oneof(
  { weight: 2, arbitrary: plain(fc.integer({ min: 1, max: 400 })) },
  { weight: 1, arbitrary: plain(fc.double()) },
  { weight: 1, arbitrary: hostileArb },
);

const budgetArb: fc.Arbitrary<Make> = fc.oneof(
  {
    weight: 4,
    arbitrary: recordOf({ maxTokens: maxTokensArb, countTokens: counterArb }),
  },
  { weight: 1, arbitrary: anyInputArb },
);

const priorityArb: fc.Arbitrary<Make> = fc.oneof(
  plain(fc.integer({ min: -3, max: 3 })),
  plain(fc.double()),
  hostileArb,
);

/** A registry with sections of hostile priorities; those refused are skipped. */
function registry(
  config: SystemPromptConfig,
  priorities: Make[],
): SystemPrompt {
  const prompt = new SystemPrompt(config);
  priorities.forEach((make, index) => {
    typedOrValue(() =>
      prompt.section({
        name: `s${index}`,
        order: index,
        text: `section ${index} `.repeat(index + 1),
        priority: make() as number,
        required: (index === 0 ? true : make()) as boolean,
      })
    );
  });
  prompt.tools(() => ({
    schemas: [{ name: "t", description: "a tool", parameters: {} }],
  }));
  return prompt;
}

/** `options.budget` when it reads as a plain record, else `undefined`. */
function safeBudget(options: unknown): unknown {
  try {
    const budget = (options as { budget?: unknown } | undefined)?.budget;
    const { maxTokens, countTokens } = budget as Record<string, unknown>;
    return { maxTokens, countTokens };
  } catch {
    return undefined;
  }
}

/** When the counter is the sound one, what was kept fits. */
function assertFits(assembly: PromptAssembly, budget: unknown): void {
  let maxTokens: unknown, countTokens: unknown;
  try {
    ({ maxTokens, countTokens } = budget as Record<string, unknown>);
  } catch {
    return;
  }
  if (countTokens !== chars || typeof maxTokens !== "number") return;
  const { total } = countAssemblyTokens(assembly, chars);
  assert.ok(total <= maxTokens, `${total} > ${maxTokens}`);
}

describe(`fuzz: token budgets (seed ${FUZZ_SEED})`, () => {
  it("a config budget is accepted or refused typed; assemblies fit or fail typed", async () => {
    await fc.assert(
      fc.asyncProperty(
        budgetArb,
        fc.array(priorityArb, { maxLength: 5 }),
        async (makeBudget, priorities) => {
          const budget = makeBudget();
          const prompt = typedOrValue(() =>
            registry({ budget } as SystemPromptConfig, priorities)
          );
          if (prompt === undefined) return;
          try {
            assertFits(await prompt.assemble(), budget);
          } catch (error) {
            assertTyped(error);
          }
          await prompt.dispose();
        },
      ),
      FUZZ_OPTIONS,
    );
  });

  it("assemble()'s options are accepted or refused typed, never thrown synchronously", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { weight: 3, arbitrary: recordOf({ budget: budgetArb }) },
          { weight: 1, arbitrary: anyInputArb },
        ),
        fc.array(priorityArb, { maxLength: 5 }),
        async (makeOptions, priorities) => {
          const prompt = registry({}, priorities);
          const options = makeOptions();
          let result: Promise<PromptAssembly>;
          try {
            result = prompt.assemble({}, options as never);
          } catch (error) {
            assert.fail(`assemble threw synchronously: ${String(error)}`);
          }
          try {
            const assembly = await result;
            const budget = safeBudget(options);
            if (budget !== undefined) assertFits(assembly, budget);
          } catch (error) {
            assertTyped(error);
          }
          await prompt.dispose();
        },
      ),
      FUZZ_OPTIONS,
    );
  });

  it("an assembly a listener made hostile fails typed under a budget (when it does without one)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("sections", "variables", "tools", "entry", "text"),
        hostileArb,
        async (key, make) => {
          const outcome = async (config: SystemPromptConfig) => {
            const prompt = registry(config, []);
            prompt.variable("v", () => "value");
            prompt.section({ name: "ref", order: 9, text: "{{v}} {{v}}" });
            prompt.onAssemble(async (_assembly, _context, next) => {
              const assembly = await next();
              const value = make();
              if (key === "entry") {
                (assembly.sections as unknown[])[0] = value;
              } else if (key === "text") {
                (assembly.sections[0] as { text: unknown }).text = value;
              } else {(assembly as unknown as Record<string, unknown>)[key] =
                  value;}
              return assembly;
            });
            try {
              await prompt.assemble();
              return undefined;
            } catch (error) {
              return error;
            } finally {
              await prompt.dispose();
            }
          };
          const without = await outcome({});
          // Another room's raw error (not the budget's) is not judged here.
          if (
            without !== undefined && !(without instanceof SystemPromptError)
          ) {
            return;
          }
          const error = await outcome({
            budget: { maxTokens: 50, countTokens: chars },
          });
          if (error !== undefined) assertTyped(error);
        },
      ),
      FUZZ_OPTIONS,
    );
  });
});
