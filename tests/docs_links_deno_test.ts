/**
 * The README and the guides in `docs/` link to each other by relative paths
 * and heading anchors; a moved or renamed heading must not leave a dead link.
 * Deno-only: it reads the checkout, which the npm test runs do not have.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);

/** GitHub's anchor of a heading: lower case, punctuation dropped, `-` for spaces. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a Markdown file's headings, code blocks left out. */
export function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  for (const line of withoutCode(markdown).split("\n")) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading !== null) found.add(slug(heading[1]));
  }
  return found;
}

/** The text outside fenced code blocks (their links are not links). */
function withoutCode(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, "");
}

/** Every relative link target of a Markdown file: `[text](target)`. */
export function relativeLinks(markdown: string): string[] {
  const text = withoutCode(markdown).replace(/`[^`\n]*`/g, "");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map(([, target]) => target)
    .filter((target) => !/^[a-z]+:/i.test(target));
}

function markdownFiles(): string[] {
  const files = ["README.md", "ARCHITECTURE.md"];
  for (const entry of Deno.readDirSync(new URL("docs/", ROOT))) {
    if (entry.isFile && entry.name.endsWith(".md")) {
      files.push(`docs/${entry.name}`);
    }
  }
  return files.sort();
}

describe("README and docs/ links", () => {
  it("finds the anchors GitHub makes", () => {
    assert.equal(
      slug("How much will the cache serve?"),
      "how-much-will-the-cache-serve",
    );
    assert.equal(
      slug("Sub-agents, complete prompts and runtime context"),
      "sub-agents-complete-prompts-and-runtime-context",
    );
    assert.deepEqual(relativeLinks("[a](b.md#c) `[x](y)` [d](https://e)"), [
      "b.md#c",
    ]);
  });

  it("links the README to every guide in docs/", () => {
    const readme = Deno.readTextFileSync(new URL("README.md", ROOT));
    const linked = new Set(
      relativeLinks(readme).map((target) => target.split("#")[0]),
    );
    for (const file of markdownFiles()) {
      if (file.startsWith("docs/")) assert.ok(linked.has(file), file);
    }
  });

  it("resolves every relative link and anchor", () => {
    const dead: string[] = [];
    for (const file of markdownFiles()) {
      const base = new URL(file, ROOT);
      const markdown = Deno.readTextFileSync(base);
      for (const target of relativeLinks(markdown)) {
        const [path, anchor] = target.split("#");
        const url = path === "" ? base : new URL(path, base);
        let text: string;
        try {
          text = Deno.readTextFileSync(url);
        } catch {
          dead.push(`${file}: ${target} (no such file)`);
          continue;
        }
        if (anchor !== undefined && url.pathname.endsWith(".md")) {
          if (!anchors(text).has(anchor)) {
            dead.push(`${file}: ${target} (no such heading)`);
          }
        }
      }
    }
    assert.deepEqual(dead, []);
  });
});
