/**
 * The documentation check: `deno doc --lint` over every entry point of
 * `deno.json`'s `exports` (`mod.ts` and the adapter subpaths), plus "every
 * export of each has an `@example`", minus known false positives: Deno's doc
 * linter reports a dependency's type as a "private type" wherever the public
 * API names it. {@linkcode DEPENDENCY_TYPES} lists those types by name with
 * the npm package they come from (RxJS's `Observable` in `change$` and
 * `AssembleListener`; the AI SDK's `SystemModelMessage` and `ToolSet` in
 * `./ai-sdk`'s result, and its message types in the conversation's; the MCP SDK's `Client` in `./mcp`). They are their packages' to document, and
 * re-exporting them would make the linter demand JSDoc for the packages'
 * internals. A report is allowed only if it names one of them and the
 * reporting file imports that name from that package; every other
 * diagnostic fails.
 *
 * @module
 */

/** Dependency types the public API names: type name → npm package. */
const DEPENDENCY_TYPES: Record<string, string> = {
  Observable: "rxjs",
  SystemModelMessage: "ai",
  ToolSet: "ai",
  UserModelMessage: "ai",
  AssistantModelMessage: "ai",
  ToolModelMessage: "ai",
  Client: "@modelcontextprotocol/sdk/client",
  CallToolResult: "@modelcontextprotocol/sdk/types",
  FunctionCallingConfigMode: "@google/genai",
};

const ROOT = new URL("../", import.meta.url);

async function deno(...args: string[]): Promise<Deno.CommandOutput> {
  return await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env: { NO_COLOR: "1" },
  }).output();
}

function text(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

interface DocSymbol {
  name: string;
  declarations: { jsDoc?: { tags?: { kind: string }[] } }[];
}

/** `deno.json`'s exports as relative paths (a string is the `"."` export). */
function entryPoints(): string[] {
  const exports: string | Record<string, string> =
    JSON.parse(Deno.readTextFileSync(new URL("deno.json", ROOT))).exports;
  return typeof exports === "string" ? [exports] : Object.values(exports);
}

/** Whether a diagnostic is a known dependency type's private-type-ref. */
function isDependencyTypeReport(block: string): boolean {
  const header =
    /^error\[private-type-ref\]: public type '[^']+' references private type '([^']+)'\n\s*--> (.+):\d+:\d+\n/
      .exec(block);
  if (header === null) return false;
  const [, name, file] = header;
  const from = DEPENDENCY_TYPES[name];
  if (from === undefined) return false;
  const imported = new RegExp(
    `import\\s+(?:type\\s+)?\\{[^}]*\\b(?:type\\s+)?${name}\\b[^}]*\\}\\s*` +
      `from\\s*"${from.replace(/[/.]/g, "\\$&")}"`,
  );
  return imported.test(Deno.readTextFileSync(file));
}

const entries = entryPoints();
const lint = await deno("doc", "--lint", ...entries);
const output = text(lint.stdout) + text(lint.stderr);
const diagnostics = output.split(/\n(?=error\[)/).filter((block) =>
  block.startsWith("error[")
);
const rejected = diagnostics.filter((block) => !isDependencyTypeReport(block));
const failedWithoutDiagnostics = lint.code !== 0 && diagnostics.length === 0;

const json = await deno("doc", "--json", ...entries);
const nodes: Record<string, { symbols: DocSymbol[] }> =
  JSON.parse(text(json.stdout)).nodes;
let exported = 0;
const withoutExample: string[] = [];
for (const entry of entries) {
  const symbols = nodes[new URL(entry, ROOT).href]?.symbols;
  if (symbols === undefined) throw new Error(`deno doc: no node for ${entry}`);
  exported += symbols.length;
  for (const symbol of symbols) {
    const hasExample = symbol.declarations.some((declaration) =>
      declaration.jsDoc?.tags?.some((tag) => tag.kind === "example")
    );
    if (!hasExample) withoutExample.push(`${entry}: ${symbol.name}`);
  }
}

if (rejected.length > 0 || failedWithoutDiagnostics) console.error(output);
if (withoutExample.length > 0) {
  console.error(`exports without an @example: ${withoutExample.join(", ")}`);
}
if (
  rejected.length > 0 || failedWithoutDiagnostics || withoutExample.length > 0
) {
  console.error(
    `doc lint: ${rejected.length} diagnostic(s), ${withoutExample.length} ` +
      `export(s) without an example.`,
  );
  Deno.exit(1);
}
console.log(
  `doc lint: clean; ${entries.length} entry points, ${exported} exports, ` +
    `each with an @example (${diagnostics.length} known private-type-ref ` +
    `report(s) of dependency types allowed: ` +
    `${Object.keys(DEPENDENCY_TYPES).join(", ")}).`,
);
