import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SystemPromptError } from "../mod.ts";

describe("SystemPromptError", () => {
  it("carries a stable code, its name, the message and the cause", () => {
    const cause = new TypeError("boom");
    const error = new SystemPromptError("PROVIDER_FAILED", "provider failed", {
      cause,
    });
    assert.ok(error instanceof Error);
    assert.ok(error instanceof SystemPromptError);
    assert.equal(error.code, "PROVIDER_FAILED");
    assert.equal(error.name, "SystemPromptError");
    assert.equal(error.message, "provider failed");
    assert.equal(error.cause, cause);
    assert.match(String(error), /^SystemPromptError: provider failed$/);
  });

  it("has no cause unless one is given", () => {
    const error = new SystemPromptError("DISPOSED", "disposed");
    assert.equal(Object.hasOwn(error, "cause"), false);
  });
});
