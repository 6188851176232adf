/**
 * What the messages of typed errors say, and behaviours that only a
 * message or a call count can show.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type PromptAssembly,
  renderPrompt,
  SystemPrompt,
  type ToolProvider,
} from "../mod.ts";
import { rejects } from "./assertions.ts";
import { section } from "./fixtures.ts";

describe("messages of typed errors", () => {
  it("a bad tool result names the provider's function, its index and its registrar", async () => {
    const prompt = new SystemPrompt();
    prompt.tools(() => ({ schemas: [] }));
    prompt.fork({ label: "search" }).tools(
      function searchTools() {
        return { schemas: "no" };
      } as unknown as ToolProvider,
    );
    await assert.rejects(
      prompt.assemble(),
      rejects(
        "INVALID_TOOL_SCHEMA",
        'tool provider searchTools (#2) of registrar "registry/search" ' +
          "(the global layer)",
      ),
    );
    await prompt.dispose();
  });

  it("an anonymous tool provider is named by its index only", async () => {
    const prompt = new SystemPrompt();
    const providers = [() => ({ schemas: null })] as unknown as ToolProvider[];
    prompt.scope("agent").tools(providers[0]);
    await assert.rejects(
      prompt.assemble({ scope: "agent" }),
      rejects(
        "INVALID_TOOL_SCHEMA",
        /tool provider #1 of registrar "registry\/scope" \(scope "agent"\)/,
      ),
    );
    await prompt.dispose();
  });

  it("a listener returning variables: null is INVALID_LISTENER_RESULT naming the listener's number", async () => {
    const prompt = new SystemPrompt();
    prompt.onAssemble((_assembly, _context, next) => next());
    prompt.onAssemble((assembly) =>
      ({ ...assembly, variables: null }) as unknown as PromptAssembly
    );
    await assert.rejects(
      prompt.assemble(),
      rejects("INVALID_LISTENER_RESULT", "Assembly listener #2 returned"),
    );
    await prompt.dispose();
  });

  it("a bad schema value deep in parameters is located by its own path", async () => {
    const prompt = new SystemPrompt();
    prompt.tools(() => ({
      schemas: [{
        name: "t",
        description: "d",
        parameters: { a: { ok: 1 }, b: () => 1 },
      }],
    }));
    await assert.rejects(prompt.assemble(), (error) => {
      rejects("PROVIDER_FAILED", "parameters.b")(error);
      assert.ok(!(error as Error).message.includes("parameters.a.b"));
      return true;
    });
    await prompt.dispose();
  });

  it("DISPOSED messages name the action and the scope", async () => {
    const prompt = new SystemPrompt();
    const agent = prompt.scope("reviewer");
    await agent.dispose();
    assert.throws(
      () => agent.section(section("late", 1)),
      rejects(
        "DISPOSED",
        'Cannot register section "late": this registrar (scope "reviewer")',
      ),
    );
    assert.throws(
      () => agent.variable("late", () => ""),
      rejects("DISPOSED", 'Cannot register variable "late"'),
    );
    assert.throws(
      () => agent.scope("other"),
      rejects("DISPOSED", 'Cannot open scope "other"'),
    );
    await prompt.dispose();
    await assert.rejects(
      prompt.assemble(),
      rejects("DISPOSED", "Cannot assemble: the registry is disposed."),
    );
    assert.throws(
      () => prompt.invalidate(),
      rejects("DISPOSED", "Cannot invalidate: the registry is disposed."),
    );
  });

  it("a malformed reference's excerpt ends with an ellipsis only when cut", () => {
    const long = `{{a{${"x".repeat(60)}}}`;
    assert.throws(
      () =>
        renderPrompt({
          sections: [{ name: "s", order: 0, text: long }],
          tools: [],
          variables: {},
        }),
      rejects("MALFORMED_REFERENCE", `"${long.slice(0, 40)}…"`),
    );
    assert.throws(
      () =>
        renderPrompt({
          sections: [{ name: "s", order: 0, text: "{{a{b}}" }],
          tools: [],
          variables: {},
        }),
      rejects("MALFORMED_REFERENCE", '("{{a{b}}")'),
    );
  });
});

describe("shadowing", () => {
  it("a global variable provider shadowed by the scope is not called", async () => {
    const prompt = new SystemPrompt();
    let globalCalls = 0;
    prompt.variable("cwd", () => {
      globalCalls++;
      return "/global";
    });
    prompt.scope("agent").variable("cwd", () => "/agent");
    const assembly = await prompt.assemble({ scope: "agent" });
    assert.deepEqual(assembly.variables, { cwd: "/agent" });
    assert.equal(globalCalls, 0);
    await prompt.assemble();
    assert.equal(globalCalls, 1);
    await prompt.dispose();
  });
});
