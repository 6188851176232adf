/**
 * Issue 44, item 18: the conversation functions' signatures as the API docs
 * (`deno doc`, what JSR shows) render them. A parameter declared with a
 * default value renders as required (`options: X`), so an optional one is
 * declared `options?: X`: `aiSdkConversation(prompt)` is how its own
 * example calls it. Deno-only: runs `deno doc --json`.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";

const ENTRIES = [
  "../../adapters/anthropic/mod.ts",
  "../../adapters/openai/mod.ts",
  "../../adapters/ai_sdk/mod.ts",
].map((path) => new URL(path, import.meta.url).pathname);

interface DocParam {
  kind: string;
  name?: string;
  optional?: boolean;
  left?: DocParam;
}

/** One declaration of a documented function (an overload, or the one). */
interface FunctionDeclaration {
  name: string;
  params: DocParam[];
}

/** Every function declaration of the documentation, wherever it is nested. */
function functions(
  value: unknown,
  found: FunctionDeclaration[] = [],
): FunctionDeclaration[] {
  if (Array.isArray(value)) value.forEach((inner) => functions(inner, found));
  else if (typeof value === "object" && value !== null) {
    const node = value as {
      name?: string;
      declarations?: { kind: string; def: { params: DocParam[] } }[];
    };
    for (const declaration of node.declarations ?? []) {
      if (declaration.kind === "function" && node.name !== undefined) {
        found.push({ name: node.name, params: declaration.def.params });
      }
    }
    Object.values(value).forEach((inner) => functions(inner, found));
  }
  return found;
}

describe("conversation signatures in the API docs", () => {
  it("declare no parameter with a default, which renders as required", async () => {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["doc", "--json", ...ENTRIES],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    const nodes = functions(
      JSON.parse(new TextDecoder().decode(output.stdout)),
    ).filter((node) => /Conversation$/.test(node.name));
    assert.ok(nodes.some((node) => node.name === "aiSdkConversation"));
    const defaulted = nodes.flatMap((node) =>
      node.params.filter((param) => param.kind === "assign")
        .map((param) => `${node.name}(${param.left?.name})`)
    );
    assert.deepEqual(defaulted, []);
    const ai = nodes.filter((node) => node.name === "aiSdkConversation");
    for (const node of ai) assert.equal(node.params[1].optional, true);
  });
});
