/**
 * `./otel` in a process where `@opentelemetry/api` cannot be imported (the
 * import map points it at a file that does not exist): the module and the
 * rest of the package import and work, and recording a span rejects with
 * `MISSING_PEER_DEPENDENCY` naming the package to install.
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

describe("./otel without @opentelemetry/api", () => {
  it("imports, and rejects a span with MISSING_PEER_DEPENDENCY", async () => {
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
import { recordRequestSpan, requestSpanAttributes } from "${new URL(
          "adapters/otel.ts",
          ROOT,
        )}";
const prompt = new SystemPrompt({ includeHarnessIdentity: false, persona: "Hi." });
console.log(renderPrompt(await prompt.assemble()));
console.log(requestSpanAttributes({ provider: "openai", body: { model: "m" } })["gen_ai.request.model"]);
try {
  await recordRequestSpan({ provider: "openai", body: {} });
  console.log("recorded");
} catch (error) {
  console.log(error.name, error.code);
  console.log(error.message);
}
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
      const [prompt, model, error, message] = out.trim().split("\n");
      assert.equal(prompt, "Hi.");
      assert.equal(model, "m");
      assert.equal(error, "SystemPromptError MISSING_PEER_DEPENDENCY");
      assert.match(message, /npm install @opentelemetry\/api/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});
