/**
 * Complete sections (SPEC 7.4) and the `cacheBreakpoint` flag carried from
 * registered sections to the assembly (SPEC 7.6).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { renderPrompt, renderPromptBlocks, SystemPrompt } from "../../mod.ts";
import { rejects, sectionNames } from "../assertions.ts";
import { recordChanges, tool, toolNames } from "../fixtures.ts";

describe("complete sections", () => {
  it("the one effective complete section becomes the whole sections list after the waterfall", async () => {
    const prompt = new SystemPrompt({ persona: "persona" });
    prompt.variable("who", () => "legacy");
    prompt.tools(() => ({ schemas: [tool("shell")] }));
    prompt.runtimeContext({ name: "date", order: 0, text: "today" });
    prompt.section({ name: "rules", order: 5, text: "rules" });
    prompt.scope("compat").section({
      name: "legacy",
      order: 50,
      text: () => "The {{who}} prompt.",
      complete: true,
    });
    let seen: string[] = [];
    prompt.onAssemble((assembly) => {
      seen = sectionNames(assembly);
      // A listener's edits of the complete section and the list are undone.
      assembly.sections[assembly.sections.length - 1].text = "edited";
      assembly.sections.push({ name: "footer", order: 99, text: "footer" });
      assembly.tools.push(tool("added"));
      return assembly;
    });
    const assembly = await prompt.assemble({ scope: "compat" });
    assert.deepEqual(seen, [
      "harness:identity",
      "deployment:persona",
      "rules",
      "legacy",
    ]);
    assert.deepEqual(assembly.sections, [
      // A scope section is "agent" by default (SPEC 8.1).
      {
        name: "legacy",
        order: 50,
        text: "The {{who}} prompt.",
        stability: "agent",
      },
    ]);
    assert.equal(renderPrompt(assembly), "The legacy prompt.");
    // Tools, variables and runtime contexts stay as the waterfall left them.
    assert.deepEqual(toolNames(assembly), ["shell", "added"]);
    assert.deepEqual(assembly.variables, { who: "legacy" });
    assert.equal(assembly.runtimeContext?.length, 1);
    // Other scopes are unaffected.
    const plain = await prompt.assemble();
    assert.deepEqual(sectionNames(plain), [
      "harness:identity",
      "deployment:persona",
      "rules",
      "footer",
    ]);
    await prompt.dispose();
  });

  it("a complete section shadowed by a nearer non-complete one is not effective", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.section({ name: "legacy", order: 1, text: "g", complete: true });
    prompt.section({ name: "other", order: 2, text: "o" });
    prompt.scope("agent").section({ name: "legacy", order: 1, text: "s" });
    const assembly = await prompt.assemble({ scope: "agent" });
    assert.deepEqual(sectionNames(assembly), [
      "deployment:persona",
      "legacy",
      "other",
    ]);
    assert.deepEqual(
      sectionNames(await prompt.assemble()),
      ["legacy"],
    );
    await prompt.dispose();
  });

  it("complete: false changes nothing", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.section({ name: "a", order: 1, text: "a", complete: false });
    prompt.section({ name: "b", order: 2, text: "b" });
    assert.equal(renderPrompt(await prompt.assemble()), "a\n\nb");
    await prompt.dispose();
  });

  it("a complete section inherited along a scope chain counts", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.scope("preset").section({
      name: "all",
      order: 0,
      text: "all",
      complete: true,
    });
    prompt.bindScope("sub", "preset");
    assert.deepEqual(sectionNames(await prompt.assemble({ scope: "sub" })), [
      "all",
    ]);
    await prompt.dispose();
  });

  it("MULTIPLE_COMPLETE_SECTIONS names them, before any listener runs", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.section({ name: "one", order: 1, text: "1", complete: true });
    prompt.scope("agent").section({
      name: "two",
      order: 2,
      text: "2",
      complete: true,
    });
    let ran = false;
    prompt.onAssemble((assembly) => {
      ran = true;
      return assembly;
    });
    await assert.rejects(
      prompt.assemble({ scope: "agent" }),
      rejects("MULTIPLE_COMPLETE_SECTIONS", '"one"', '"two"'),
    );
    assert.equal(ran, false);
    assert.deepEqual(sectionNames(await prompt.assemble()), ["one"]);
    await prompt.dispose();
  });

  it("rejects a non-boolean complete with INVALID_SECTION and leaves no trace", async () => {
    const prompt = new SystemPrompt();
    const recording = recordChanges(prompt);
    assert.throws(
      () =>
        prompt.section({
          name: "x",
          order: 0,
          text: "",
          complete: 1 as unknown as boolean,
        }),
      rejects("INVALID_SECTION", '"x"', "complete"),
    );
    assert.deepEqual(recording.changes, []);
    prompt.section({ name: "x", order: 0, text: "" });
    await prompt.dispose();
  });
});

describe("cacheBreakpoint", () => {
  it("is carried to the assembled section only when true", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.section({ name: "a", order: 1, text: "a", cacheBreakpoint: true });
    prompt.section({
      name: "b",
      order: 2,
      text: () => "b",
      cacheBreakpoint: true,
    });
    prompt.section({ name: "c", order: 3, text: "c", cacheBreakpoint: false });
    const assembly = await prompt.assemble();
    assert.deepEqual(assembly.sections.slice(1), [
      { name: "a", order: 1, text: "a", cacheBreakpoint: true },
      { name: "b", order: 2, text: "b", cacheBreakpoint: true },
      { name: "c", order: 3, text: "c" },
    ]);
    assert.equal("cacheBreakpoint" in assembly.sections[3], false);
    assert.deepEqual(
      renderPromptBlocks(assembly).map((block) => block.sections),
      [["a"], ["b"], ["c"]],
    );
    await prompt.dispose();
  });

  it("rejects a non-boolean with INVALID_SECTION naming the section", async () => {
    const prompt = new SystemPrompt();
    for (const value of ["yes", 1, null]) {
      assert.throws(
        () =>
          prompt.section({
            name: "x",
            order: 0,
            text: "",
            cacheBreakpoint: value as unknown as boolean,
          }),
        rejects("INVALID_SECTION", '"x"', "cacheBreakpoint"),
      );
    }
    await prompt.dispose();
  });
});
