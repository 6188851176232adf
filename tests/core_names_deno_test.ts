/**
 * Issue 45: the core (`src/`) names no provider. Its code (comments
 * aside: they may say which API a rule comes from) holds no string equal
 * to a form id, a former name of one or a cache-rules id, and no
 * identifier or property key naming a provider; the forms and their rules
 * live in `adapters/`, one folder each, and the core reads them through
 * the form and rules objects it is given.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import ts from "typescript";

const SRC = new URL("../src/", import.meta.url);

/** The ids the core must not compare: forms, their former names, rules. */
const IDS: ReadonlySet<string> = new Set([
  "anthropic-messages",
  "openai-chat",
  "openai-responses",
  "ai-sdk",
  "bedrock-converse",
  "gemini",
  "anthropic",
  "openai",
  "openai-explicit",
  "bedrock",
]);

/** A provider's name inside an identifier or key (`anthropicBody`, `OPENAI_TTL`). */
const NAMED = /anthropic|openai|bedrock|gemini|ai_?sdk|converse/i;

/** The places a source text names a provider: `line: token`. */
export function vendorNames(text: string): string[] {
  const source = ts.createSourceFile("x.ts", text, ts.ScriptTarget.Latest);
  const found: string[] = [];
  const at = (node: ts.Node) =>
    `${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${
      node.getText(source)
    }`;
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      if (IDS.has(node.text)) found.push(at(node));
    } else if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
      if (NAMED.test(node.text)) found.push(at(node));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every `.ts` file under `src/`, relative to it. */
async function sources(dir = SRC, prefix = ""): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) {
      files.push(
        ...await sources(
          new URL(`${entry.name}/`, dir),
          `${prefix}${entry.name}/`,
        ),
      );
    } else if (entry.name.endsWith(".ts")) files.push(prefix + entry.name);
  }
  return files.sort();
}

describe("the core names no provider (issue 45)", () => {
  it("finds a provider's id, name or key where one is written", () => {
    assert.deepEqual(
      vendorNames(
        [
          "// anthropic in a comment",
          'const rules = { "openai-explicit": 1, x: "openai is fine" };',
          "/* gemini */ function anthropicBody() {}",
          "const t = `${a}anthropic${b}`; const o = { bedrock: 2 };",
        ].join("\n"),
      ),
      ['2: "openai-explicit"', "3: anthropicBody", "4: bedrock"],
    );
  });

  it("src/ holds none", async () => {
    const found: string[] = [];
    for (const file of await sources()) {
      const names = vendorNames(
        await Deno.readTextFile(new URL(file, SRC)),
      );
      if (names.length > 0) found.push(`src/${file}: ${names.join(", ")}`);
    }
    assert.deepEqual(found, [], "provider names in the core");
  });
});
