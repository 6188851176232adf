import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type AssembledSection,
  type PromptAssembly,
  runtimeContextUpdate,
  SystemPrompt,
} from "../../mod.ts";
import { rejects } from "../assertions.ts";

const HEADER = "Runtime context (replaces any earlier runtime context):";

function step(
  runtimeContext: AssembledSection[] | undefined,
  variables: PromptAssembly["variables"] = {},
): PromptAssembly {
  return {
    sections: [{ name: "persona", order: 0, text: "Stable {{date}}." }],
    tools: [],
    variables: { date: "2026-12-02", ...variables },
    runtimeContext,
  };
}

const date = (text = "Today is {{date}}."): AssembledSection => ({
  name: "date",
  order: 0,
  text,
});

describe("runtimeContextUpdate", () => {
  it("first step: the default header, a newline, the rendered runtime context", () => {
    assert.equal(
      runtimeContextUpdate(undefined, step([date()])),
      `${HEADER}\nToday is 2026-12-02.`,
    );
  });

  it("first step with nothing to say: undefined (absent, empty or all-empty entries)", () => {
    assert.equal(runtimeContextUpdate(undefined, step(undefined)), undefined);
    assert.equal(runtimeContextUpdate(undefined, step([])), undefined);
    assert.equal(runtimeContextUpdate(undefined, step([date("")])), undefined);
  });

  it("undefined when the rendered text is the same, even if entries or variables differ", () => {
    const before = step([date()]);
    assert.equal(runtimeContextUpdate(before, step([date()])), undefined);
    // Another entry name and a changed unreferenced variable: same bytes.
    const same = step([{ name: "day", order: 5, text: "Today is {{date}}." }], {
      other: "x",
    });
    assert.equal(runtimeContextUpdate(before, same), undefined);
    // A changed system prompt is not the runtime context.
    const prompt = { ...step([date()]), sections: [] };
    assert.equal(runtimeContextUpdate(before, prompt), undefined);
  });

  it("a changed fact: the whole current runtime context, not a delta", () => {
    const before = step([date(), { name: "git", order: 1, text: "On main." }]);
    const after = step([date(), { name: "git", order: 1, text: "On main." }], {
      date: "2026-12-03",
    });
    assert.equal(
      runtimeContextUpdate(before, after),
      `${HEADER}\nToday is 2026-12-03.\n\nOn main.`,
    );
  });

  it('"(none)" when the runtime context became empty', () => {
    assert.equal(
      runtimeContextUpdate(step([date()]), step([])),
      `${HEADER}\n(none)`,
    );
    assert.equal(
      runtimeContextUpdate(step([date()]), step(undefined)),
      `${HEADER}\n(none)`,
    );
  });

  it("a custom header, an empty one included", () => {
    assert.equal(
      runtimeContextUpdate(undefined, step([date()]), { header: "Facts:" }),
      "Facts:\nToday is 2026-12-02.",
    );
    assert.equal(
      runtimeContextUpdate(undefined, step([date()]), { header: "" }),
      "\nToday is 2026-12-02.",
    );
    assert.equal(
      runtimeContextUpdate(undefined, step([date()]), { header: undefined }),
      `${HEADER}\nToday is 2026-12-02.`,
    );
  });

  it("is pure: the assemblies are not modified", () => {
    const before = step([date()]);
    const after = step([date()], { date: "2026-12-03" });
    const copies = structuredClone([before, after]);
    runtimeContextUpdate(before, after);
    assert.deepEqual([before, after], copies);
  });

  it("works on assemble()'s results", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    let branch = "main";
    prompt.runtimeContext({
      name: "git",
      order: 0,
      text: () => `On ${branch}.`,
    });
    const first = await prompt.assemble();
    const same = await prompt.assemble();
    branch = "fix";
    const changed = await prompt.assemble();
    assert.equal(runtimeContextUpdate(undefined, first), `${HEADER}\nOn main.`);
    assert.equal(runtimeContextUpdate(first, same), undefined);
    assert.equal(runtimeContextUpdate(same, changed), `${HEADER}\nOn fix.`);
    await prompt.dispose();
  });

  it("bad input: render errors of either side and bad options are typed", () => {
    assert.throws(
      () => runtimeContextUpdate(undefined, null as unknown as PromptAssembly),
      rejects("INVALID_ASSEMBLY"),
    );
    assert.throws(
      () =>
        runtimeContextUpdate(
          step([date("{{missing}}")]),
          step([date()]),
        ),
      rejects("UNKNOWN_VARIABLE", "missing"),
    );
    assert.throws(
      () =>
        runtimeContextUpdate(undefined, step([date()]), { header: 3 as never }),
      rejects("INVALID_CONFIG", "header", "3"),
    );
    assert.throws(
      () => runtimeContextUpdate(undefined, step([date()]), null as never),
      rejects("INVALID_CONFIG", "options"),
    );
    const throwing = {
      get header(): string {
        throw new Error("boom");
      },
    };
    assert.throws(
      () => runtimeContextUpdate(undefined, step([date()]), throwing),
      rejects("INVALID_CONFIG", "threw"),
    );
  });

  it("garbage as either assembly names runtimeContextUpdate and the argument, never renderRuntimeContext", () => {
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    const garbage: [string, unknown, string][] = [
      ["a number", 42, "INVALID_ASSEMBLY"],
      ["null", null, "INVALID_ASSEMBLY"],
      ["a string", "assembly", "INVALID_ASSEMBLY"],
      ["a runtimeContext that is not an array", {
        sections: [],
        tools: [],
        variables: {},
        runtimeContext: 5,
      }, "INVALID_ASSEMBLY"],
      ["a revoked Proxy", revoked.proxy, "INVALID_ASSEMBLY"],
      ["an unknown variable", step([date("{{missing}}")]), "UNKNOWN_VARIABLE"],
    ];
    for (const [label, value, code] of garbage) {
      for (const argument of ["previous", "current"] as const) {
        const call = argument === "previous"
          ? () => runtimeContextUpdate(value as PromptAssembly, step([date()]))
          : () => runtimeContextUpdate(step([date()]), value as PromptAssembly);
        assert.throws(call, (error) => {
          rejects(code, `runtimeContextUpdate (argument ${argument})`)(error);
          assert.doesNotMatch(
            (error as Error).message,
            /renderRuntimeContext/,
            label,
          );
          return true;
        }, `${label} as ${argument}`);
      }
    }
  });
});
