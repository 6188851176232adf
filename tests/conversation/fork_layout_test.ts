/**
 * A fork's system prompt laid out on its parent's (issue 44, SPEC 9.8):
 * the sections it shares with its parent's last request first, cut where
 * the parent's parts were cut; its own after; the wires end the shared
 * parts where the parent's ended (`parentCuts`).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type AssembledSection,
  type PromptAssembly,
  renderPromptBlocks,
} from "../../mod.ts";
import { forkLayout } from "../../src/conversation/fork_layout.ts";
import { parentCuts } from "../../adapters/_kit/content_blocks.ts";

function assembly(sections: AssembledSection[]): PromptAssembly {
  return { sections, tools: [], variables: { who: "a reviewer" } };
}

/** The parts a wire sends for `laidOut`, ended where `parent`'s ended. */
function parts(laidOut: PromptAssembly, parent: readonly string[]): string[] {
  return parentCuts(
    renderPromptBlocks(laidOut).map((block) => block.text),
    parent,
  );
}

const IDENTITY = { name: "identity", order: -100, text: "You are an agent." };
const RULES = { name: "rules", order: 100, text: "Follow the rules." };
const STYLE = { name: "style", order: 110, text: "Write plainly." };
const NOTES = { name: "notes", order: 900, text: "Be brief." };
const REVIEW = {
  name: "review",
  order: 200,
  text: "You are {{who}}.",
  stability: "agent" as const,
};

describe("forkLayout", () => {
  it("puts the sections the child adds after the parent's, which render the parent's parts", () => {
    const parent = renderPromptBlocks(
      assembly([IDENTITY, { ...RULES, cacheBreakpoint: true }, STYLE, NOTES]),
    ).map((block) => block.text);
    assert.deepEqual(parent, [
      "You are an agent.\n\nFollow the rules.\n\n",
      "Write plainly.\n\nBe brief.",
    ]);
    const child = assembly([
      IDENTITY,
      { ...RULES, cacheBreakpoint: true },
      STYLE,
      REVIEW,
      NOTES,
    ]);
    const laidOut = forkLayout(child, parent);
    assert.deepEqual(
      laidOut.sections.map((section) => section.name),
      ["identity", "rules", "style", "notes", "review"],
    );
    assert.deepEqual(parts(laidOut, parent), [
      ...parent,
      "\n\nYou are a reviewer.",
    ]);
    // Nothing of the child is lost, nothing added.
    assert.equal(
      parts(laidOut, parent).join(""),
      "You are an agent.\n\nFollow the rules.\n\nWrite plainly.\n\n" +
        "Be brief.\n\nYou are a reviewer.",
    );
  });

  it("cuts where the parent's parts were cut, whatever the child's flags say", () => {
    const parent = ["You are an agent.\n\nFollow the rules.\n\n", "Be brief."];
    const child = assembly([
      { ...IDENTITY, cacheBreakpoint: true },
      { ...RULES, stability: "agent" },
      NOTES,
      REVIEW,
    ]);
    assert.deepEqual(parts(forkLayout(child, parent), parent), [
      ...parent,
      "\n\nYou are a reviewer.",
    ]);
  });

  it("shares up to the first section whose text differs; the rest keeps its order", () => {
    const parent = ["You are an agent.\n\n", "Follow the rules.\n\nBe brief."];
    const child = assembly([
      IDENTITY,
      REVIEW,
      { ...RULES, text: "Follow the reviewer's rules." },
      NOTES,
    ]);
    const laidOut = forkLayout(child, parent);
    assert.deepEqual(
      laidOut.sections.map((section) => section.name),
      ["identity", "review", "rules", "notes"],
    );
    assert.equal(parts(laidOut, parent)[0], parent[0]);
  });

  it("never shares a volatile section", () => {
    const clock = {
      name: "clock",
      order: 50,
      text: "It is noon.",
      stability: "volatile" as const,
    };
    const parent = ["You are an agent.\n\n", "It is noon.\n\n", "Be brief."];
    const child = assembly([IDENTITY, clock, REVIEW, NOTES]);
    const laidOut = forkLayout(child, parent);
    assert.deepEqual(
      laidOut.sections.map((section) => section.name),
      ["identity", "clock", "review", "notes"],
    );
  });

  it("returns an assembly that shares nothing, or does not render, as it is", () => {
    const child = assembly([REVIEW, NOTES]);
    assert.equal(forkLayout(child, ["You are an agent."]), child);
    assert.equal(forkLayout(child, []), child);
    const broken = assembly([{ ...NOTES, text: "{{missing}}" }]);
    assert.equal(forkLayout(broken, ["Be brief."]), broken);
  });

  it("lays a grandchild out on a fork's parts, its own separator first", () => {
    const grandparent = ["You are an agent.\n\nBe brief."];
    const child = assembly([IDENTITY, REVIEW, NOTES]);
    const childParts = parts(forkLayout(child, grandparent), grandparent);
    assert.deepEqual(childParts, [
      "You are an agent.\n\nBe brief.",
      "\n\nYou are a reviewer.",
    ]);
    const grandchild = assembly([
      IDENTITY,
      REVIEW,
      { ...STYLE, order: 300, stability: "agent" },
      NOTES,
    ]);
    assert.deepEqual(parts(forkLayout(grandchild, childParts), childParts), [
      ...childParts,
      "\n\nWrite plainly.",
    ]);
  });
});

describe("parentCuts", () => {
  it("moves the separator after the parent's last part to the next part only", () => {
    assert.deepEqual(
      parentCuts(["a\n\n", "b\n\n", "c"], ["a\n\n", "b"]),
      ["a\n\n", "b", "\n\nc"],
    );
    assert.deepEqual(parentCuts(["a\n\n", "b"], ["x"]), ["a\n\n", "b"]);
    // The child's last part keeps what it has: nothing follows it.
    assert.deepEqual(parentCuts(["a\n\n"], ["a"]), ["a\n\n"]);
  });
});
