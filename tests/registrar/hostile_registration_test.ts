/**
 * A revoked Proxy of a function is still `typeof "function"`, but it can
 * never be called: every registration kind that takes a function refuses it
 * at once, typed, naming the registration, with no change event and nothing
 * registered.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Registrar, SystemPrompt } from "../../mod.ts";
import { rejects } from "../assertions.ts";
import { recordChanges } from "../fixtures.ts";

function revokedFunction(): never {
  const { proxy, revoke } = Proxy.revocable(function named() {}, {});
  revoke();
  return proxy as never;
}

const REGISTRATIONS: [string, (plugin: Registrar) => unknown, string[]][] = [
  [
    "tools(fn)",
    (plugin) => plugin.tools(revokedFunction()),
    ["INVALID_PROVIDER", "A tool provider", "revoked Proxy"],
  ],
  [
    "variable(name, fn)",
    (plugin) => plugin.variable("v", revokedFunction()),
    ["INVALID_PROVIDER", 'variable "v"', "revoked Proxy"],
  ],
  [
    "section({ text: fn })",
    (plugin) =>
      plugin.section({ name: "s", order: 1, text: revokedFunction() }),
    ["INVALID_SECTION", 'section "s"', "revoked Proxy"],
  ],
  [
    "runtimeContext({ text: fn })",
    (plugin) =>
      plugin.runtimeContext({ name: "r", order: 1, text: revokedFunction() }),
    ["INVALID_SECTION", 'runtime context "r"', "revoked Proxy"],
  ],
  [
    "onAssemble(fn)",
    (plugin) => plugin.onAssemble(revokedFunction()),
    ["INVALID_PROVIDER", "An assembly listener", "revoked Proxy"],
  ],
  [
    "toolGate(fn)",
    (plugin) => plugin.toolGate(revokedFunction()),
    ["INVALID_PROVIDER", "A tool gate", "revoked Proxy"],
  ],
  [
    "effect(body)",
    (plugin) => plugin.effect(revokedFunction()),
    ["INVALID_EFFECT", "effect body", "revoked Proxy"],
  ],
];

describe("a revoked Proxy of a function at registration", () => {
  for (const [label, register, [code, ...parts]] of REGISTRATIONS) {
    it(`${label} throws ${code} at once, with no change event and nothing registered`, async () => {
      const prompt = new SystemPrompt({ includeHarnessIdentity: false });
      const before = await prompt.assemble();
      const { changes } = recordChanges(prompt);
      for (const plugin of [prompt, prompt.scope("agent")]) {
        assert.throws(() => register(plugin), rejects(code, ...parts));
      }
      assert.deepEqual(changes, []);
      assert.deepEqual(await prompt.assemble(), before);
      assert.deepEqual(await prompt.assemble({ scope: "agent" }), before);
      await prompt.dispose();
    });
  }
});

describe("a hostile name getter at registration", () => {
  it("a disposed registrar still answers DISPOSED for a section or runtime context whose name getter throws", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    const plugin = prompt.fork();
    await plugin.dispose();
    const entry = () =>
      Object.defineProperty({ order: 1, text: "t" }, "name", {
        get: () => {
          throw new Error("hostile name getter");
        },
      }) as never;
    assert.throws(
      () => plugin.section(entry()),
      rejects("DISPOSED", "register a section"),
    );
    assert.throws(
      () => plugin.runtimeContext(entry()),
      rejects("DISPOSED", "register a runtime context"),
    );
    await prompt.dispose();
  });
});
