import { describe, it } from "node:test";
import assert from "node:assert/strict";

describe("JSON copies where the host forbids compiling code", () => {
  it("copy tool parameters as they do elsewhere", async () => {
    const script = `
      import { SystemPrompt } from "${new URL(
      "../../mod.ts",
      import.meta.url,
    )}";
      let compiled = true;
      try { new Function("return 1"); } catch { compiled = false; }
      const prompt = new SystemPrompt();
      const parameters = { type: "object", properties: { a: { type: "string" } } };
      prompt.tools(() => ({ schemas: [{ name: "t", description: "d", parameters }] }));
      const first = (await prompt.assemble()).tools[0].parameters;
      parameters.properties.a.format = "uri";
      const second = (await prompt.assemble()).tools[0].parameters;
      console.log(JSON.stringify({ compiled, first, second }));
    `;
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        "--config",
        new URL("../../deno.json", import.meta.url).pathname,
        "--v8-flags=--disallow-code-generation-from-strings",
        script,
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    assert.equal(code, 0, decoder.decode(stderr));
    assert.deepEqual(JSON.parse(decoder.decode(stdout)), {
      compiled: false,
      first: { type: "object", properties: { a: { type: "string" } } },
      second: {
        type: "object",
        properties: { a: { type: "string", format: "uri" } },
      },
    });
  });
});
