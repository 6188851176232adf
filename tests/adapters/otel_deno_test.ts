/**
 * `./otel` in a process where `@opentelemetry/api` cannot be imported (the
 * import map points it at a file that does not exist): importing `./otel`
 * fails with `MISSING_PEER_DEPENDENCY` naming the package to install, and
 * the rest of the package imports and works.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

describe("./otel without @opentelemetry/api", () => {
  it("fails to import with MISSING_PEER_DEPENDENCY, the rest of the package unaffected", async () => {
    const dir = await Deno.makeTempDir({ prefix: "rxprompt_otel_" });
    try {
      const config = JSON.parse(
        await Deno.readTextFile(new URL("deno.json", ROOT)),
      );
      const imports = {
        ...config.imports,
        "@opentelemetry/api": "./missing_opentelemetry_api.js",
      };
      await Deno.writeTextFile(
        `${dir}/deno.json`,
        JSON.stringify({ imports }),
      );
      await Deno.writeTextFile(
        `${dir}/main.ts`,
        `import { SystemPrompt, renderPrompt } from "${new URL(
          "mod.ts",
          ROOT,
        )}";
const prompt = new SystemPrompt({ includeHarnessIdentity: false, persona: "Hi." });
console.log(renderPrompt(await prompt.assemble()));
try {
  await import("${new URL("adapters/otel/mod.ts", ROOT)}");
  console.log("imported");
} catch (error) {
  console.log(error.name, error.code);
  console.log(error.message);
}
console.log(renderPrompt(await prompt.assemble()));
await prompt.dispose();
`,
      );
      const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--quiet",
          "--no-lock",
          "--allow-read",
          "--config",
          `${dir}/deno.json`,
          `${dir}/main.ts`,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const out = new TextDecoder().decode(stdout);
      assert.equal(code, 0, new TextDecoder().decode(stderr));
      const [prompt, error, message, after] = out.trim().split("\n");
      assert.equal(prompt, "Hi.");
      assert.equal(error, "SystemPromptError MISSING_PEER_DEPENDENCY");
      assert.match(message, /npm install @opentelemetry\/api/);
      assert.equal(after, "Hi.");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});
