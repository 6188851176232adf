/**
 * `attributeChange` names the registration behind a change between two
 * explained assemblies: a scope's section with its scope key, a tool a
 * source dropped, a listener's section, the gate behind a tool made
 * inactive, and nothing when the tools and system prompt did not change.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt } from "../../../mod.ts";
import { toChatCompletions } from "../../../adapters/openai/mod.ts";
import {
  attributeChange,
  judgeRequest,
  readReportedUsage,
} from "../../../adapters/cache/mod.ts";
import { chatCompletion } from "./reported_fixtures.ts";

const tool = (name: string) => ({
  name,
  description: `The ${name} tool.`,
  parameters: {},
});

describe("attributeChange", () => {
  it("names a scope's section with its scope key", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    try {
      prompt.section({ name: "rules", order: 10, text: "Be careful." });
      let focus = "tests";
      prompt.scope("reviewer", { label: "review" }).section({
        name: "review:focus",
        order: 30,
        text: () => `Focus on ${focus}.`,
      });
      const before = await prompt.explain({ scope: "reviewer" });
      focus = "docs";
      const after = await prompt.explain({ scope: "reviewer" });
      assert.deepEqual(attributeChange(before, after), {
        kind: "section",
        name: "review:focus",
        change: "changed",
        registrar: "registry/review",
        layer: "scope",
        scope: "reviewer",
        brokenBy: "section:review:focus",
      });
    } finally {
      await prompt.dispose();
    }
  });

  it("names a tool its source dropped, from the earlier explanation", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    try {
      let names = ["alpha", "beta"];
      prompt.fork({ label: "mcp" }).tools(() => ({
        schemas: names.map(tool),
      }));
      const before = await prompt.explain();
      names = ["beta"];
      const after = await prompt.explain();
      const contributor = attributeChange(before, after);
      assert.equal(contributor?.kind, "tool");
      assert.equal(contributor?.name, "alpha");
      assert.equal(contributor?.change, "removed");
      assert.equal(contributor?.registrar, "registry/mcp");
    } finally {
      await prompt.dispose();
    }
  });

  it("names the gate that made a tool inactive", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    try {
      prompt.tools(() => ({ schemas: [tool("read"), tool("deploy")] }));
      let planning = false;
      prompt.fork({ label: "safety" }).toolGate(function planOnly() {
        return planning ? ["read"] : undefined;
      });
      const before = await prompt.explain();
      planning = true;
      const after = await prompt.explain();
      assert.deepEqual(attributeChange(before, after), {
        kind: "activeTools",
        name: "deploy",
        change: "removed",
        registrar: "registry",
        layer: "global",
        gate:
          'tool gate planOnly (#1) of registrar "registry/safety" (the global layer)',
      });
    } finally {
      await prompt.dispose();
    }
  });

  it("names the gate behind a tool_choice change that lost the cache", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    try {
      prompt.section({ name: "rules", order: 10, text: "Rules. ".repeat(900) });
      prompt.tools(() => ({ schemas: [tool("read"), tool("deploy")] }));
      let planning = false;
      prompt.fork({ label: "safety" }).toolGate(() =>
        planning ? ["read"] : undefined
      );
      const request = async (read: number) => {
        const explanation = await prompt.explain();
        const { system, tools, tool_choice } = toChatCompletions(
          explanation.assembly,
        );
        return {
          body: {
            model: "gpt-5.6",
            tools,
            ...(tool_choice !== undefined ? { tool_choice } : {}),
            messages: [system, { role: "user", content: "Go." }],
          },
          usage: readReportedUsage(chatCompletion(1700, read), "openai-chat"),
          explanation,
        };
      };
      const previous = await request(0);
      planning = true;
      const current = await request(0); // the provider read nothing
      const judgement = judgeRequest(
        { previous, current },
        {
          provider: "openai",
          countTokens: (text) => Math.ceil(text.length / 4),
        },
      );
      assert.equal(judgement.verdict, "request");
      assert.equal(judgement.change?.option, "tool_choice");
      assert.equal(judgement.contributor?.kind, "activeTools");
      assert.match(judgement.contributor?.gate ?? "", /registry\/safety/);
    } finally {
      await prompt.dispose();
    }
  });

  it("gives a listener's section no registrar", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    try {
      prompt.section({ name: "rules", order: 10, text: "Be careful." });
      let note = "one";
      prompt.onAssemble((assembly) => ({
        ...assembly,
        sections: [
          ...assembly.sections,
          { name: "note", order: 50, text: `Note ${note}.` },
        ],
      }));
      const before = await prompt.explain();
      note = "two";
      const after = await prompt.explain();
      const contributor = attributeChange(before, after);
      assert.equal(contributor?.name, "note");
      assert.equal(contributor?.layer, "listener");
      assert.equal(contributor?.registrar, undefined);
    } finally {
      await prompt.dispose();
    }
  });

  it("gives undefined when the tools and system prompt are unchanged", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    try {
      prompt.section({ name: "rules", order: 10, text: "Be careful." });
      const explanation = await prompt.explain();
      assert.equal(
        attributeChange(explanation, await prompt.explain()),
        undefined,
      );
    } finally {
      await prompt.dispose();
    }
  });
});
