import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type AssembledSection,
  type PromptAssembly,
  renderPrompt,
  renderRuntimeContext,
} from "../../mod.ts";
import { rejects } from "../assertions.ts";

function entry(name: string, text: string, order = 0): AssembledSection {
  return { name, order, text };
}

function assembly(
  runtimeContext: AssembledSection[] | undefined,
  variables: PromptAssembly["variables"] = {},
): PromptAssembly {
  return {
    sections: [entry("persona", "You are {{name}}.")],
    tools: [],
    variables: { name: "Builder", ...variables },
    runtimeContext,
  };
}

describe("renderRuntimeContext", () => {
  it("renders the runtime context, not the sections, in the given order", () => {
    const input = assembly([
      entry("git", "Branch: {{branch}}", 20),
      entry("date", "Today is {{date}}.", 10),
    ], { branch: "main", date: "2026-12-02" });
    assert.equal(
      renderRuntimeContext(input),
      "Branch: main\n\nToday is 2026-12-02.",
    );
    assert.equal(renderPrompt(input), "You are Builder.");
  });

  it('reads an absent runtimeContext as [] and renders no entries as ""', () => {
    const { runtimeContext: _, ...withoutKey } = assembly(undefined);
    assert.equal("runtimeContext" in withoutKey, false);
    assert.equal(renderRuntimeContext(withoutKey), "");
    assert.equal(renderRuntimeContext(assembly(undefined)), "");
    assert.equal(renderRuntimeContext(assembly([])), "");
  });

  it('drops entries that render empty, and renders all-empty as ""', () => {
    assert.equal(
      renderRuntimeContext(
        assembly([entry("a", ""), entry("b", "B"), entry("c", "{{e}}")], {
          e: "",
        }),
      ),
      "B",
    );
    assert.equal(
      renderRuntimeContext(assembly([entry("a", ""), entry("c", "{{e}}")], {
        e: "",
      })),
      "",
    );
  });

  it("uses the assembly's variables, strictly, naming the entry", () => {
    const cases: [string, string, string, PromptAssembly["variables"]][] = [
      ["{{missing}}", "UNKNOWN_VARIABLE", '"{{missing}}"', {}],
      ["{{ date }}", "MALFORMED_REFERENCE", '"{{ date }}"', {}],
      ["{{date}}", "VARIABLE_WITHOUT_VALUE", '"{{date}}"', { date: undefined }],
      ["{{{date}}}", "MALFORMED_REFERENCE", "offset 0", { date: "d" }],
    ];
    for (const [text, code, part, variables] of cases) {
      assert.throws(
        () =>
          renderRuntimeContext(
            assembly([entry("ok", "fine"), entry("clock", text)], variables),
          ),
        rejects(code, 'Runtime context entry "clock"', part),
      );
    }
  });

  it("rejects an entry whose text is not a string, naming it", () => {
    const bad = { name: "open-files", order: 0, text: ["a.ts"] };
    assert.throws(
      () =>
        renderRuntimeContext(
          assembly([bad as unknown as AssembledSection]),
        ),
      rejects(
        "INVALID_SECTION",
        'Runtime context entry "open-files"',
        "an array",
      ),
    );
  });

  it("never rescans substituted text and keeps a lone {{ verbatim", () => {
    assert.equal(
      renderRuntimeContext(
        assembly([entry("a", "{{v}} and {{ no close")], { v: "{{name}}" }),
      ),
      "{{name}} and {{ no close",
    );
  });

  it("does not mutate the assembly", () => {
    const input = assembly([entry("a", "{{name}}")]);
    const before = structuredClone(input);
    assert.equal(renderRuntimeContext(input), "Builder");
    assert.deepEqual(input, before);
  });
});
