import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { firstValueFrom } from "rxjs";
import { renderPrompt, SystemPrompt } from "../mod.ts";
import { describeScope, quote } from "../src/errors.ts";
import { rejects } from "./assertions.ts";
import { section } from "./fixtures.ts";

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

function throwingProxy(): object {
  return new Proxy({}, {
    get() {
      throw new Error("get trap");
    },
    getPrototypeOf() {
      throw new Error("getPrototypeOf trap");
    },
  });
}

const hostileKeys: [string, () => object][] = [
  ["a revoked Proxy", revokedProxy],
  ["a Proxy whose traps throw", throwingProxy],
];

describe("hostile scope keys", () => {
  for (const [label, make] of hostileKeys) {
    it(`${label} works as a scope key: register, assemble, watch and dispose`, async () => {
      const prompt = new SystemPrompt();
      const key = make();
      const agent = prompt.scope(key, { label: "agent" });
      agent.section(section("agent:note", 1, "for this agent"));
      agent.variable("who", () => "agent");
      const assembly = await prompt.assemble({ scope: key });
      assert.ok(renderPrompt(assembly).endsWith("for this agent"));
      assert.deepEqual(assembly.variables, { who: "agent" });
      const view = await firstValueFrom(prompt.watch({ scope: key }));
      assert.ok("prompt" in view && view.prompt.endsWith("for this agent"));
      await agent.dispose();
      assert.ok(
        !renderPrompt(await prompt.assemble({ scope: key })).includes(
          "for this agent",
        ),
      );
      await prompt.dispose();
    });

    it(`${label} is described in a DISPOSED message without failing`, async () => {
      const prompt = new SystemPrompt();
      const key = make();
      const agent = prompt.scope(key);
      await agent.dispose();
      assert.throws(
        () => agent.section(section("late", 1)),
        rejects("DISPOSED", "scope object (an object key)"),
      );
      assert.throws(
        () => agent.scope(make()),
        rejects("DISPOSED", "scope object (an object key)"),
      );
      await prompt.dispose();
    });

    it(`describeScope and quote of ${label} never throw`, () => {
      assert.equal(describeScope(make()), "scope object (an object key)");
      assert.equal(quote(make()), "an object");
    });
  }

  it("describeScope names a class-instance key by its class and a plain key as an object", () => {
    class Agent {}
    assert.equal(describeScope(new Agent()), "scope Agent (an object key)");
    assert.equal(describeScope({}), "scope Object (an object key)");
    assert.equal(
      describeScope(Object.create(null)),
      "scope object (an object key)",
    );
    assert.equal(describeScope("reviewer"), 'scope "reviewer"');
    assert.equal(describeScope(undefined), "the global layer");
  });

  it("a function Proxy whose get throws is quoted as a function without reading its name", () => {
    const hostile = new Proxy(function named() {}, {
      get() {
        throw new Error("get trap");
      },
    });
    assert.equal(quote(hostile), "function (anonymous)");
  });
});
