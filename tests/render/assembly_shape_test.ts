import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type AssembledSection,
  type PromptAssembly,
  renderPrompt,
  renderRuntimeContext,
} from "../../mod.ts";
import { rejects } from "../assertions.ts";

/** An assembly as plain JavaScript callers may build it, types aside. */
function loose(value: unknown): PromptAssembly {
  return value as PromptAssembly;
}

const section: AssembledSection = { name: "a", order: 0, text: "A {{x}}" };

describe("renderPrompt: the assembly's shape", () => {
  for (const value of [null, undefined, 42, "text", true]) {
    it(`rejects ${String(value)} as the assembly with INVALID_ASSEMBLY`, () => {
      assert.throws(
        () => renderPrompt(loose(value)),
        rejects(
          "INVALID_ASSEMBLY",
          "renderPrompt",
          value === null || value === undefined ? String(value) : typeof value,
          "{ sections, tools, variables }",
        ),
      );
    });
  }

  for (
    const [label, sections, described] of [
      ["an object", {}, "an object"],
      ["null", null, "null"],
      ["absent", undefined, "undefined"],
      ["a string", "A", "a string"],
    ] as const
  ) {
    it(`rejects sections that are ${label}, naming sections and what is valid`, () => {
      assert.throws(
        () => renderPrompt(loose({ sections, tools: [], variables: {} })),
        rejects(
          "INVALID_ASSEMBLY",
          `sections is ${described}`,
          "array of assembled sections { name, order, text }",
        ),
      );
    });
  }

  it("rejects a section entry that is not an object, naming its index", () => {
    for (
      const [entry, described] of [
        [null, "null"],
        [undefined, "undefined"],
        ["text", "a string"],
        [7, "a number"],
        [() => "text", "a function"],
      ] as const
    ) {
      assert.throws(
        () =>
          renderPrompt(
            loose({
              sections: [section, entry],
              tools: [],
              variables: { x: "" },
            }),
          ),
        rejects(
          "INVALID_ASSEMBLY",
          `sections[1] is ${described}`,
          "{ name, order, text }",
        ),
      );
    }
    // A hole in a sparse array reads as undefined.
    const sparse: AssembledSection[] = [section];
    sparse.length = 2;
    assert.throws(
      () => renderPrompt({ sections: sparse, tools: [], variables: { x: "" } }),
      rejects("INVALID_ASSEMBLY", "sections[1] is undefined"),
    );
  });

  for (
    const [label, variables, described] of [
      ["absent", undefined, "undefined"],
      ["null", null, "null"],
      ["an array", ["x"], "an array"],
      ["a string", "x", "a string"],
    ] as const
  ) {
    it(`rejects variables that are ${label}, with or without references`, () => {
      for (const text of ["A {{x}}", "no references"]) {
        assert.throws(
          () =>
            renderPrompt(
              loose({ sections: [{ ...section, text }], tools: [], variables }),
            ),
          rejects(
            "INVALID_ASSEMBLY",
            `variables is ${described}`,
            "use {} for none",
          ),
        );
      }
    });
  }

  it("checks the sections before the variables", () => {
    assert.throws(
      () => renderPrompt(loose({ sections: {}, variables: null })),
      rejects("INVALID_ASSEMBLY", "sections is an object"),
    );
  });

  it("does not read tools: an assembly without them renders", () => {
    assert.equal(
      renderPrompt(loose({ sections: [section], variables: { x: "1" } })),
      "A 1",
    );
  });

  it("renders the same bytes after a rejected shape", () => {
    const good: PromptAssembly = {
      sections: [section],
      tools: [],
      variables: { x: "1" },
    };
    const before = renderPrompt(good);
    assert.throws(() => renderPrompt(loose({ sections: [null] })));
    assert.equal(renderPrompt(good), before);
  });
});

describe("renderRuntimeContext: the assembly's shape", () => {
  it("rejects a non-object assembly, naming renderRuntimeContext", () => {
    for (const value of [null, undefined, 1]) {
      assert.throws(
        () => renderRuntimeContext(loose(value)),
        rejects("INVALID_ASSEMBLY", "renderRuntimeContext"),
      );
    }
  });

  it("rejects a runtimeContext that is present but not an array", () => {
    for (
      const [value, described] of [
        [null, "null"],
        [{}, "an object"],
        ["x", "a string"],
      ] as const
    ) {
      assert.throws(
        () =>
          renderRuntimeContext(
            loose({
              sections: [],
              tools: [],
              variables: {},
              runtimeContext: value,
            }),
          ),
        rejects(
          "INVALID_ASSEMBLY",
          `runtimeContext is ${described}`,
          "or leave the key out",
        ),
      );
    }
  });

  it("rejects an entry that is not an object, naming runtimeContext[i]", () => {
    assert.throws(
      () =>
        renderRuntimeContext(
          loose({ variables: { x: "" }, runtimeContext: [section, 0] }),
        ),
      rejects("INVALID_ASSEMBLY", "runtimeContext[1] is a number"),
    );
  });

  it("rejects variables that are not an object, also with no entries", () => {
    for (const runtimeContext of [undefined, [], [section]]) {
      assert.throws(
        () => renderRuntimeContext(loose({ sections: [], runtimeContext })),
        rejects("INVALID_ASSEMBLY", "variables is undefined"),
      );
    }
  });

  it("does not read the sections", () => {
    assert.equal(
      renderRuntimeContext(
        loose({
          sections: null,
          variables: { x: "1" },
          runtimeContext: [section],
        }),
      ),
      "A 1",
    );
  });
});
