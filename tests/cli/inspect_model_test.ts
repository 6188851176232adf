/**
 * The inspector page's data: a view laid out from `explain()` (blocks as
 * the Anthropic adapter sends them, with their markers; contributors named
 * with the config's scope names; gates) and the request chart of a session
 * (one bar per request, uncached = input - cached - written, a verdict and
 * a diff for the miss).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPrompt } from "../../mod.ts";
import { chartsOfSimulation } from "../../cli/inspect/chart.ts";
import { layout, scopeView } from "../../cli/inspect/model.ts";
import { readmeWayWith } from "../../cli/readme_way.ts";
import { runSession } from "../../cli/session.ts";

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
const schema = { type: "object", properties: {} };

describe("the inspector's view of an assembly", () => {
  it("groups sections into the wire's blocks, with markers, stabilities, contributors and gates", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    const agent = { id: "agent" };
    prompt.fork({ label: "rules" }).section({
      name: "rules",
      order: 10,
      text: "Be brief.",
      cacheBreakpoint: true,
    });
    prompt.fork({ label: "rules" }).section({
      name: "style",
      order: 20,
      text: "Plain words.",
    });
    const scoped = prompt.scope(agent, { label: "agent" });
    scoped.section({ name: "style", order: 20, text: "Terse." });
    scoped.tools(() => ({
      schemas: [
        { name: "read", description: "Read.", parameters: schema },
        { name: "write", description: "Write.", parameters: schema },
      ],
    }));
    scoped.toolGate(() => ["read"]);
    prompt.variable("now", () => "noon", { stability: "volatile" });
    prompt.section({ name: "clock", order: 90, text: "It is {{now}}." });
    try {
      const explanation = await prompt.explain({ scope: agent }, {
        countTokens: words,
      });
      const view = layout(explanation, {
        count: words,
        names: new Map([[agent, "coder"]]),
      });
      const blocks = view.blocks.map((block) => ({
        stability: block.stability,
        marker: block.marker,
        sections: block.sections.map((section) => section.name),
      }));
      assert.deepEqual(blocks, [
        {
          stability: "stable",
          marker: true,
          sections: ["deployment:persona", "rules"],
        },
        { stability: "agent", marker: true, sections: ["style"] },
        { stability: "volatile", marker: false, sections: ["clock"] },
      ]);
      const style = view.blocks[1].sections[0];
      assert.equal(style.contributor.label, 'registry/agent (scope "coder")');
      assert.equal(style.text, "Terse.");
      assert.equal(view.blocks[2].sections[0].stabilityReason, "variable now");
      assert.deepEqual(
        view.tools.map((tool) => [tool.name, tool.active, tool.marker]),
        [["read", true, true], ["write", false, false]],
      );
      assert.match(view.tools[1].inactiveBy ?? "", /tool gate #1/);
      assert.deepEqual(
        view.shadowed.map((entry) => [entry.name, entry.contributor.label]),
        [["style", "registry/rules (global)"]],
      );
      assert.equal(
        view.totals.promptTokens,
        explanation.sections.reduce((sum, s) => sum + (s.tokens ?? 0), 0),
      );
    } finally {
      await prompt.dispose();
    }
  });

  it("shows the deferred tools apart, out of the totals, with their gates", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.section({ name: "rules", order: 10, text: "Be brief." });
    prompt.tools(() => ({
      schemas: [{ name: "read", description: "Read.", parameters: schema }],
    }));
    prompt.fork({ label: "crm" }).tools(() => ({
      schemas: [
        {
          name: "crm_find",
          description: "Find a contact.",
          parameters: schema,
        },
        { name: "crm_log", description: "Log a call.", parameters: schema },
      ],
    }), { defer: true });
    prompt.toolGate(() => ["read", "crm_find"]);
    try {
      const explanation = await prompt.explain({}, { countTokens: words });
      const view = layout(explanation, { count: words, names: new Map() });
      assert.deepEqual(view.tools.map((tool) => tool.name), ["read"]);
      assert.deepEqual(
        view.deferredTools?.map((tool) => [
          tool.name,
          tool.active,
          tool.contributor.label,
          tool.marker,
        ]),
        [
          ["crm_find", true, "registry/crm (global)", false],
          ["crm_log", false, "registry/crm (global)", false],
        ],
      );
      assert.match(view.deferredTools?.[1].inactiveBy ?? "", /tool gate #1/);
      assert.ok(view.deferredTools!.every((tool) => tool.tokens > 0));
      assert.equal(view.totals.toolTokens, view.tools[0].tokens);
    } finally {
      await prompt.dispose();
    }
    const plain = new SystemPrompt({ includeHarnessIdentity: false });
    plain.section({ name: "rules", order: 10, text: "Be brief." });
    try {
      const explanation = await plain.explain({}, { countTokens: words });
      const view = layout(explanation, { count: words, names: new Map() });
      assert.equal("deferredTools" in view, false);
    } finally {
      await plain.dispose();
    }
  });

  it("shows a failed assembly as the view's one-line error", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.section({ name: "broken", order: 1, text: "{{missing}}" });
    try {
      const view = await scopeView(prompt, {
        name: undefined,
        key: undefined,
        position: 0,
        context: () => ({}),
      }, { count: words, names: new Map() });
      assert.equal(view.id, "view-global");
      assert.equal(view.title, "the global view");
      assert.match(view.error ?? "", /UNKNOWN_VARIABLE/);
      assert.ok(!view.error?.includes("\n"));
      assert.deepEqual(view.blocks, []);
    } finally {
      await prompt.dispose();
    }
  });
});

describe("the inspector's request chart", () => {
  it("has one bar per request, with the miss's verdict and diff", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    let version = 1;
    prompt.section({
      name: "guide",
      order: 10,
      text: () => `Guide ${version}. ` + "Keep changes small. ".repeat(80),
      cacheBreakpoint: true,
    });
    const messages: { role: "user" | "assistant"; content: string }[] = [];
    const step = (index: number) => {
      if (index === 2) version = 2;
      if (index > 0) messages.push({ role: "assistant", content: "Done." });
      messages.push({ role: "user", content: `Task ${index}.` });
      return { messages: [...messages] };
    };
    const steps = await runSession(
      { prompt, steps: [step, step, step, step] },
      // 0.4's bytes: the guide's change is a layout miss to chart.
      { readme: readmeWayWith({ changes: "rebuild" }) },
    );
    const { charts, errors } = chartsOfSimulation(steps, {
      session: "s.ts",
      providers: ["anthropic", "openai"],
      count: (text) => text.length,
    });
    assert.deepEqual(errors, []);
    assert.deepEqual(charts.map((chart) => chart.source), [
      { kind: "simulation", session: "s.ts", provider: "anthropic" },
      { kind: "simulation", session: "s.ts", provider: "openai" },
    ]);
    const [anthropic] = charts;
    assert.equal(anthropic.requests.length, 4);
    for (const request of anthropic.requests) {
      assert.equal(
        request.uncachedTokens,
        request.inputTokens - request.cachedTokens - request.writtenTokens,
      );
    }
    assert.ok(anthropic.requests[1].cachedTokens > 0);
    assert.deepEqual(
      anthropic.requests.map((request) => request.verdict?.kind),
      [undefined, undefined, "layout", undefined],
    );
    assert.deepEqual(anthropic.requests[2].diff.sections.changed, ["guide"]);
    assert.equal(anthropic.requests[2].diff.against, 1);
    assert.equal(anthropic.requests[2].diff.brokenBy, "section:guide");
    assert.equal(anthropic.requests[0].diff.against, null);
    assert.deepEqual(anthropic.totals, {
      inputTokens: sum(anthropic.requests.map((r) => r.inputTokens)),
      cachedTokens: sum(anthropic.requests.map((r) => r.cachedTokens)),
      writtenTokens: sum(anthropic.requests.map((r) => r.writtenTokens)),
      uncachedTokens: sum(anthropic.requests.map((r) => r.uncachedTokens)),
    });
  });
});

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
