import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type AssembledSection,
  type CacheFinding,
  lintCache,
  type PromptAssembly,
  SystemPrompt,
  type ToolSchema,
} from "../../mod.ts";
import { volatileMatches } from "../../src/lint/volatile_text.ts";
import { rejects } from "../assertions.ts";

function section(
  name: string,
  text: string,
  extra: Partial<AssembledSection> = {},
): AssembledSection {
  return { name, order: 0, text, ...extra };
}

function tool(name: string, description = "Does a thing."): ToolSchema {
  return { name, description, parameters: { type: "object" } };
}

function assembly(parts: Partial<PromptAssembly>): PromptAssembly {
  return { sections: [], tools: [], variables: {}, ...parts };
}

function codes(findings: CacheFinding[]): string[] {
  return findings.map(({ code, entry }) => `${code} ${entry}`);
}

describe("lintCache", () => {
  it("a clean, stable assembly has no findings", () => {
    const clean = assembly({
      sections: [
        section("persona", "You review code in {{repo}}. Be brief."),
        section("rules", "Use 2 spaces. Version 1.2.3, port 8080, 10:30 a.m."),
      ],
      tools: [tool("read_file", "Read a file from https://example.com/docs.")],
      variables: { repo: "rxprompt" },
    });
    assert.deepEqual(lintCache(clean), []);
  });

  it("VOLATILE_CONTENT: each kind of volatile-looking value, in rendered text", () => {
    const cases: [string, string][] = [
      ["id 123e4567-e89b-12d3-a456-426614174000", "a UUID"],
      ["Today is 2026-12-02.", "an ISO-8601 date"],
      ["At 2026-12-02T10:15:00Z.", "an ISO-8601 date"],
      ["Started 10:15:42.", "an ISO-8601 time"],
      ["Since 1764672000.", "an epoch timestamp"],
      ["Since 1764672000123.", "an epoch timestamp"],
      ["Work in /tmp/build-x1.", "a temporary path"],
      ["Work in /var/folders/ab/T/x.", "a temporary path"],
      ["Work in C:\\Users\\me\\AppData\\Local\\Temp\\x.", "a temporary path"],
      ["Commit 9fceb02d0ae598e95dc970b74767f19372d61af8.", "a hex id"],
      ["See https://example.com/s?session=42 now.", "a URL with a query"],
    ];
    for (const [text, what] of cases) {
      const findings = lintCache(assembly({
        sections: [section("facts", "{{fact}}")],
        variables: { fact: text },
      }));
      assert.deepEqual(
        codes(findings),
        ["VOLATILE_CONTENT section:facts"],
        text,
      );
      assert.equal(findings[0].severity, "warning");
      assert.ok(findings[0].message.includes(what), findings[0].message);
    }
  });

  it("VOLATILE_CONTENT: not for ordinary text that resembles it", () => {
    for (
      const text of [
        "Count to 1234567890123456789.", // digits only, 19 of them
        "deadbeefdeadbeefdeadbeef is a word of hex letters only.",
        "Use src/tmp/out and ./tmp/x.",
        "See https://example.com/path#frag?x and https://example.com/? .",
        "Phone 2026-13-45 is not a date.",
        "ftp://host/x?y=1 is not http.",
      ]
    ) {
      assert.deepEqual(
        lintCache(assembly({ sections: [section("s", text)] })),
        [],
        text,
      );
    }
  });

  it("VOLATILE_CONTENT in a non-volatile tool's description or schema; never in volatile entries", () => {
    const findings = lintCache(assembly({
      tools: [
        tool("a", "Temp dir /tmp/x."),
        {
          name: "b",
          description: "",
          parameters: { default: "2026-12-02" },
        },
        tool("c", "Today 2026-12-02."),
      ],
      sections: [
        section("v", "Now 2026-12-02.", { stability: "volatile" }),
        section("g", "Agent 2026-12-02.", { stability: "agent" }),
      ],
      toolStability: { c: "volatile" },
    }));
    assert.deepEqual(codes(findings), [
      "VOLATILE_CONTENT tool:a",
      "VOLATILE_CONTENT tool:b",
      "VOLATILE_BEFORE_STABLE section:v",
      "VOLATILE_IN_SYSTEM section:v",
      "VOLATILE_CONTENT section:g",
    ]);
    assert.ok(findings[1].message.includes("description or schema"));
    assert.ok(findings[4].message.includes("is agent"));
  });

  it("VOLATILE_BEFORE_STABLE: tools against tools, sections against sections; agent before stable is fine", () => {
    const findings = lintCache(assembly({
      tools: [tool("mcp_x"), tool("agent_y"), tool("read")],
      toolStability: { agent_y: "agent", mcp_x: "volatile" },
      sections: [
        section("persona", "Agent persona.", { stability: "agent" }),
        section("rules", "Stable rules."),
        section("memory", "Notes.", { stability: "volatile" }),
        section("later", "More rules."),
        section("tail", "Tail.", { stability: "volatile" }),
        section("empty", ""),
      ],
    }));
    assert.deepEqual(codes(findings), [
      "VOLATILE_BEFORE_STABLE tool:mcp_x",
      "VOLATILE_BEFORE_STABLE section:memory",
      "VOLATILE_IN_SYSTEM section:memory",
      "VOLATILE_IN_SYSTEM section:tail",
    ]);
    assert.ok(findings[0].message.includes('"agent_y"'), findings[0].message);
    assert.ok(findings[1].message.includes('"later"'), findings[1].message);
  });

  it("a volatile tool last and a volatile section last are not VOLATILE_BEFORE_STABLE", () => {
    const findings = lintCache(assembly({
      tools: [tool("read"), tool("mcp_x")],
      toolStability: { mcp_x: "volatile" },
    }));
    assert.deepEqual(findings, []);
  });

  it("BREAKPOINT_ON_VOLATILE on a volatile section with cacheBreakpoint", () => {
    const findings = lintCache(assembly({
      sections: [
        section("rules", "Rules.", { cacheBreakpoint: true }),
        section("memory", "Notes.", {
          stability: "volatile",
          cacheBreakpoint: true,
        }),
      ],
    }));
    assert.deepEqual(codes(findings), [
      "VOLATILE_IN_SYSTEM section:memory",
      "BREAKPOINT_ON_VOLATILE section:memory",
    ]);
  });

  it("INVALID_TOOL_NAME (error) for a name the adapters reject", () => {
    const findings = lintCache(assembly({
      tools: [
        tool("files.read"),
        tool("ok_name-1"),
        tool("x".repeat(65)),
        tool("x".repeat(64)),
        tool("with space"),
      ],
    }));
    assert.deepEqual(codes(findings), [
      "INVALID_TOOL_NAME tool:files.read",
      `INVALID_TOOL_NAME tool:${"x".repeat(65)}`,
      "INVALID_TOOL_NAME tool:with space",
    ]);
    assert.ok(findings.every((finding) => finding.severity === "error"));
  });

  it("ignore leaves codes out", () => {
    const input = assembly({
      tools: [tool("files.read")],
      sections: [section("memory", "x", { stability: "volatile" })],
    });
    assert.deepEqual(
      codes(lintCache(input, { ignore: ["VOLATILE_IN_SYSTEM"] })),
      ["INVALID_TOOL_NAME tool:files.read"],
    );
  });

  it("reads a registry's assembly", async () => {
    const prompt = new SystemPrompt({ includeHarnessIdentity: false });
    prompt.section({
      name: "today",
      order: 10,
      text: () => "Date: 2026-12-02",
    });
    prompt.tools(() => ({ schemas: [tool("files.read")] }));
    assert.deepEqual(codes(lintCache(await prompt.assemble())), [
      "INVALID_TOOL_NAME tool:files.read",
      "VOLATILE_CONTENT section:today",
    ]);
    await prompt.dispose();
  });

  it("bad input is typed", () => {
    assert.throws(() => lintCache(null as never), rejects("INVALID_ASSEMBLY"));
    assert.throws(
      () => lintCache(assembly({ tools: [null as never] })),
      rejects("INVALID_ASSEMBLY", "tool 0"),
    );
    assert.throws(
      () =>
        lintCache(assembly({
          sections: [section("s", "x", { stability: "sometimes" as never })],
        })),
      rejects("INVALID_ASSEMBLY", '"sometimes"', '"s"'),
    );
    assert.throws(
      () =>
        lintCache(assembly({
          tools: [tool("t")],
          toolStability: { t: 3 as never },
        })),
      rejects("INVALID_ASSEMBLY", '"t"'),
    );
    assert.throws(
      () => lintCache(assembly({ sections: [section("s", "{{nope}}")] })),
      rejects("UNKNOWN_VARIABLE"),
    );
    assert.throws(
      () => lintCache(assembly({}), { ignore: "all" as never }),
      rejects("INVALID_CONFIG"),
    );
  });

  it("linear time on adversarial text (no catastrophic backtracking)", () => {
    const size = 200_000;
    const texts = [
      "a".repeat(size),
      "0".repeat(size),
      "1".repeat(size),
      "a1".repeat(size / 2),
      "2026-12-0".repeat(size / 9),
      "12:34:5".repeat(size / 7),
      "http://".repeat(size / 7),
      "https://a".repeat(size / 9) + "?",
      "://".repeat(size / 3),
      "/tmp".repeat(size / 4),
      "-".repeat(size),
      "aaaaaaaa-aaaa-aaaa-aaaa-".repeat(size / 24),
    ];
    for (const text of texts) {
      const started = performance.now();
      volatileMatches(text);
      const elapsed = performance.now() - started;
      assert.ok(
        elapsed < 500,
        `${JSON.stringify(text.slice(0, 12))}: ${elapsed} ms`,
      );
    }
  });
});
