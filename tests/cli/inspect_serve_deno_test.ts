/**
 * `rxprompt inspect --serve` run as a subprocess and read by a real
 * headless Chromium (puppeteer-core, the machine's /usr/bin/chromium; no
 * browser is downloaded): the page shows every section of each view with
 * its stability and contributor, follows a live change without a reload,
 * charts a session's requests, shows a config error; the server answers
 * this machine's names only and stops cleanly on SIGINT. Deno-only
 * (subprocesses, a browser).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { repoPath, rxprompt } from "./cli_process.ts";
import { serve } from "./inspect_server.ts";
import type { InspectorState } from "../../cli/inspect/serve.ts";
import { listen } from "../../cli/inspect/http.ts";
import { CliError } from "../../cli/cli_error.ts";
import { BehaviorSubject } from "rxjs";
import type { PromptExplanation, SystemPrompt } from "../../mod.ts";

/** The page's `document`, in functions the browser runs. */
declare const document: {
  activeElement: { id: string; textContent: string | null } | null;
  getElementById(id: string): unknown;
};

import { playSession } from "../conversation/report_session.ts";
import { compactionRecording } from "./compaction_recording.ts";
const CHROMIUM = "/usr/bin/chromium";
const CONFIG = "tests/cli/fixtures/inspector.ts";
const SESSION = "tests/cli/fixtures/inspector_session.ts";
const WAIT = { timeout: 30_000 };

function chromiumMissing(): string | false {
  try {
    Deno.statSync(CHROMIUM);
    return false;
  } catch {
    return `no chromium binary at ${CHROMIUM} (apt-get install chromium; ` +
      `.ci/run installs it)`;
  }
}

async function explainFixture(): Promise<{
  global: PromptExplanation;
  reviewer: PromptExplanation;
}> {
  const module = await import(repoPath(CONFIG));
  const { prompt, scopes } = module.default as {
    prompt: SystemPrompt;
    scopes: { reviewer: object };
  };
  try {
    return {
      global: await prompt.explain({}),
      reviewer: await prompt.explain({ scope: scopes.reviewer }),
    };
  } finally {
    await prompt.dispose();
  }
}

/** What the page shows of one row: its data attributes and text. */
interface Row {
  stability: string | null;
  contributor: string | null;
  text: string;
}

function rowsOf(page: Page, view: string, attribute: string) {
  return page.$$eval(
    `#${view} [data-${attribute}]`,
    (rows, attribute) =>
      Object.fromEntries(rows.map((row) => [
        row.getAttribute(`data-${attribute}`),
        {
          stability: row.getAttribute("data-stability"),
          contributor: row.getAttribute("data-contributor"),
          text: row.textContent ?? "",
        },
      ])) as Record<string, Row>,
    attribute,
  );
}

/** The report session's recording (tests/conversation/report_session.ts). */
async function sessionRecording(
  changes: "rebuild" | "inline" = "rebuild",
): Promise<string> {
  const { prompt, conv } = await playSession(1_000_000, changes);
  await prompt.dispose();
  return conv.save();
}

describe("rxprompt inspect --serve", { skip: chromiumMissing() }, () => {
  let browser: Browser;
  let folder: string;
  before(async () => {
    folder = await Deno.makeTempDir({ prefix: "rxprompt_inspect_" });
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      pipe: true,
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run"],
    });
  });
  after(async () => {
    await browser?.close();
    await Deno.remove(folder, { recursive: true }).catch(() => {});
  });

  it("shows every section and tool of each view with its stability and contributor, live, and the session's requests", async () => {
    const trigger = `${folder}/add_late_section`;
    const server = await serve([CONFIG, "--session", SESSION], {
      RXPROMPT_INSPECT_TRIGGER: trigger,
    });
    const page = await browser.newPage();
    try {
      await page.setViewport({ width: 1200, height: 900 });
      await page.goto(server.url);
      await page.waitForSelector("body[data-status=ready]", WAIT);
      const expected = await explainFixture();
      for (
        const [view, explanation] of [
          ["view-global", expected.global],
          ["view-1", expected.reviewer],
        ] as const
      ) {
        const sections = await rowsOf(page, view, "section");
        assert.deepEqual(
          Object.keys(sections),
          explanation.sections.map((section) => section.name),
        );
        for (const origin of explanation.sections) {
          const row = sections[origin.name];
          assert.equal(row.stability, origin.stability, origin.name);
          // Readable without colour: the stability is a word in the row.
          assert.match(row.text, new RegExp(`\\b${origin.stability}\\b`));
          assert.ok(
            row.contributor?.startsWith(`${origin.registrar} (`),
            `${origin.name}: ${row.contributor}`,
          );
        }
        const tools = await rowsOf(page, view, "tool");
        assert.deepEqual(
          Object.keys(tools),
          explanation.tools.map((tool) => tool.name),
        );
        for (const origin of explanation.tools) {
          assert.equal(tools[origin.name].stability, origin.stability);
          assert.ok(
            tools[origin.name].contributor?.startsWith(origin.registrar!),
          );
          if (origin.inactiveBy !== undefined) {
            assert.ok(tools[origin.name].text.includes(origin.inactiveBy));
          }
        }
        const pruned = await rowsOf(page, view, "pruned");
        assert.deepEqual(
          Object.keys(pruned),
          (explanation.pruned ?? []).map((entry) => entry.name),
        );
        const shadowed = await rowsOf(page, view, "shadowed");
        assert.deepEqual(
          Object.keys(shadowed),
          explanation.shadowed.map((entry) => entry.name),
        );
      }
      // The fixture has a gate, a pruned and a shadowed entry to show.
      assert.ok(expected.reviewer.tools.some((tool) => tool.inactiveBy));
      assert.ok((expected.global.pruned ?? []).length > 0);
      assert.ok(expected.reviewer.shadowed.length > 0);
      const reviewerStyle = (await rowsOf(page, "view-1", "section")).style;
      assert.equal(
        reviewerStyle.contributor,
        'registry/review (scope "reviewer")',
      );
      // Markers, by word: the breakpoint block is marked, the volatile one not.
      const blocks = await page.$$eval(
        "#view-global [data-block]",
        (found) =>
          found.map((block) => ({
            stability: block.getAttribute("data-stability"),
            marker: block.getAttribute("data-marker"),
            heading: block.querySelector("h4")?.textContent ?? "",
          })),
      );
      assert.equal(blocks[0].marker, "yes");
      assert.match(blocks[0].heading, /cache marker/);
      const volatile = blocks.find((block) => block.stability === "volatile");
      assert.equal(volatile?.marker, "no");
      assert.doesNotMatch(volatile?.heading ?? "", /cache marker/);

      // The session: one bar per request with `rxprompt simulate`'s figures
      // (charted after the server listens).
      await page.waitForSelector("#chart-anthropic a.bar", WAIT);
      const simulated = await rxprompt([
        "simulate",
        SESSION,
        "--provider",
        "anthropic",
        "--json",
      ]);
      assert.equal(simulated.code, 0, simulated.stderr);
      const report = JSON.parse(simulated.stdout).providers.anthropic as {
        steps: {
          inputTokens: number;
          cachedTokens: number;
          writtenTokens: number;
          firstMiss?: unknown;
        }[];
        totals: {
          inputTokens: number;
          cachedTokens: number;
          writtenTokens: number;
        };
      };
      const bars = await page.$$eval(
        "#chart-anthropic a.bar",
        (found) =>
          found.map((bar) => ({
            cached: Number(bar.getAttribute("data-cached")),
            written: Number(bar.getAttribute("data-written")),
            uncached: Number(bar.getAttribute("data-uncached")),
            miss: bar.classList.contains("miss"),
            href: bar.getAttribute("href"),
            label: bar.getAttribute("aria-label") ?? "",
          })),
      );
      assert.equal(bars.length, report.steps.length);
      assert.equal(bars.length, 5);
      report.steps.forEach((step, index) => {
        assert.deepEqual(
          [bars[index].cached, bars[index].written, bars[index].uncached],
          [
            step.cachedTokens,
            step.writtenTokens,
            step.inputTokens - step.cachedTokens - step.writtenTokens,
          ],
          `request ${index}`,
        );
        assert.equal(bars[index].href, `#step-anthropic-${index}`);
      });
      const totals = await page.$eval(
        "#chart-anthropic [data-totals]",
        (element) => element.textContent,
      );
      const { inputTokens, cachedTokens, writtenTokens } = report.totals;
      assert.equal(
        totals,
        `In all: ${inputTokens} input tokens: ${cachedTokens} cached, ` +
          `${writtenTokens} written, ` +
          `${inputTokens - cachedTokens - writtenTokens} uncached.`,
      );
      // Step 3 changed the guide: a miss, with its verdict and its diff.
      assert.deepEqual(bars.map((bar) => bar.miss), [
        false,
        false,
        false,
        true,
        false,
      ]);
      assert.match(bars[3].label, /miss \(layout\): first miss system:0/);
      await page.focus("#bar-anthropic-3");
      await page.keyboard.press("Enter");
      await page.waitForFunction(
        () => location.hash === "#step-anthropic-3",
        WAIT,
      );
      const step = await page.$eval(
        "#step-anthropic-3",
        (element) => element.textContent,
      );
      assert.match(step ?? "", /sections changed: guide/);
      assert.match(step ?? "", /the prompt cache breaks at section:guide/);
      assert.match(step ?? "", /against request 2/);

      await page.screenshot({
        path: `${folder}/inspector.png`,
        fullPage: true,
      });
      assert.ok((await Deno.stat(`${folder}/inspector.png`)).size > 10_000);
      await page.goto(server.url + "#view-global");
      await page.waitForSelector("body[data-status=ready]", WAIT);
      await page.screenshot({ path: `${folder}/inspector_top.png` });

      // A live change: the section appears in both views without a reload.
      await page.evaluate(() => {
        (globalThis as { notReloaded?: boolean }).notReloaded = true;
      });
      const sequence = await page.$eval(
        "body",
        (body) => Number(body.getAttribute("data-sequence")),
      );
      // The reader keeps their place: focus and open texts survive it.
      await page.click("#view-1-section-rules > summary");
      await page.focus("#nav-view-1");
      await Deno.writeTextFile(trigger, "now");
      await page.waitForSelector('#view-global [data-section="late"]', WAIT);
      await page.waitForSelector('#view-1 [data-section="late"]', WAIT);
      const late = (await rowsOf(page, "view-global", "section")).late;
      assert.equal(late.contributor, "registry/late (global)");
      assert.equal(
        await page.evaluate(() => document.activeElement?.id),
        "nav-view-1",
      );
      assert.equal(
        await page.$eval(
          "#view-1-section-rules",
          (details) => details.hasAttribute("open"),
        ),
        true,
      );
      assert.equal(late.stability, "stable");
      assert.equal(
        await page.evaluate(() =>
          (globalThis as { notReloaded?: boolean }).notReloaded
        ),
        true,
      );
      assert.ok(
        await page.$eval(
          "body",
          (body) => Number(body.getAttribute("data-sequence")),
        ) > sequence,
      );
      assert.equal(server.stderr(), "");
    } finally {
      await page.close();
      const { code, stdout } = await server.stop();
      assert.equal(code, 0);
      assert.equal(stdout.at(-1), "rxprompt inspect: stopped");
    }
  });

  it("charts a recorded conversation: the reported tokens, the verdicts and the provider's reasons", async () => {
    const file = `${folder}/session.jsonl`;
    await Deno.writeTextFile(file, await sessionRecording());
    const server = await serve([CONFIG, "--recording", file]);
    const page = await browser.newPage();
    try {
      await page.goto(server.url);
      await page.waitForSelector("#chart-anthropic-messages a.bar", WAIT);
      const bars = await page.$$eval(
        "#chart-anthropic-messages a.bar",
        (found) =>
          found.map((bar) => ({
            miss: bar.classList.contains("miss"),
            cached: Number(bar.getAttribute("data-cached")),
          })),
      );
      assert.deepEqual(
        bars.map((bar) => bar.miss),
        [false, false, true, true, true, true],
      );
      assert.ok(bars[1].cached > 0);
      assert.equal(bars[5].cached, 0);
      const text = await page.$eval("#requests", (found) => found.textContent);
      assert.match(text ?? "", /reported in .*session\.jsonl/);
      assert.match(text ?? "", /The provider's reason: system_changed/);
      assert.match(text ?? "", /Changed: tool browse added \(registry\/mcp\)/);
    } finally {
      await page.close();
      assert.equal((await server.stop()).code, 0);
    }
  });

  it("charts a recorded conversation whose changes went inline: no miss, each change named on its bar and step", async () => {
    const file = `${folder}/inline.jsonl`;
    await Deno.writeTextFile(file, await sessionRecording("inline"));
    const server = await serve([CONFIG, "--recording", file]);
    const page = await browser.newPage();
    try {
      await page.goto(server.url);
      await page.waitForSelector("#chart-anthropic-messages a.bar", WAIT);
      const bars = await page.$$eval(
        "#chart-anthropic-messages a.bar",
        (found) =>
          found.map((bar) => ({
            miss: bar.classList.contains("miss"),
            label: bar.getAttribute("aria-label") ?? "",
          })),
      );
      // The section and the tool changes are no misses (the lapse and the
      // eviction still are).
      assert.deepEqual(
        bars.map((bar) => bar.miss),
        [false, false, false, false, true, true],
      );
      assert.match(bars[2].label, /no miss; inline: section git changed$/);
      assert.match(bars[3].label, /no miss; inline: tool browse added$/);
      const step = await page.$eval(
        "#step-anthropic-messages-2",
        (found) => found.textContent,
      );
      assert.match(step ?? "", /inline: section git changed/);
    } finally {
      await page.close();
      assert.equal((await server.stop()).code, 0);
    }
  });

  it("shows a recorded compaction's rows as such: the summarizing request, its cached share, the swap", async () => {
    const file = `${folder}/compaction.jsonl`;
    await Deno.writeTextFile(file, await compactionRecording());
    const server = await serve([CONFIG, "--recording", file]);
    const page = await browser.newPage();
    try {
      await page.goto(server.url);
      await page.waitForSelector("#chart-bedrock-converse a.bar", WAIT);
      const roles = await page.$$eval(
        "#chart-bedrock-converse a.bar",
        (found) => found.map((bar) => bar.getAttribute("data-compaction")),
      );
      assert.deepEqual(roles, [null, null, null, "summary", "swap", null]);
      const label = await page.$eval(
        "#chart-bedrock-converse a.bar[data-compaction=summary]",
        (bar) => bar.getAttribute("aria-label"),
      );
      assert.match(
        label ?? "",
        /the summarizing request of a compaction, 98\.0% of its input cached; no miss/,
      );
      const text = await page.$eval("#requests", (found) => found.textContent);
      assert.match(
        text ?? "",
        /Compactions: 1 summarizing request, 3000 of their 3060 input tokens cached \(98\.0%\); 0 inside a request; 1 rewrite after one/,
      );
      assert.match(
        text ?? "",
        /the first request after a compaction was swapped in; miss \(compaction\)/,
      );
    } finally {
      await page.close();
      assert.equal((await server.stop()).code, 0);
    }
  });

  it("is keyboard navigable: a skip link, then the views' links, every bar a link", async () => {
    const server = await serve([CONFIG, "--session", SESSION]);
    const page = await browser.newPage();
    try {
      await page.goto(server.url);
      await page.waitForSelector("body[data-status=ready]", WAIT);
      const focused = async () =>
        await page.evaluate(() =>
          document.activeElement?.id ||
          document.activeElement?.textContent?.trim()
        );
      await page.keyboard.press("Tab");
      assert.equal(await focused(), "Skip to the views");
      await page.keyboard.press("Tab");
      assert.equal(await focused(), "nav-view-global");
      await page.keyboard.press("Tab");
      assert.equal(await focused(), "nav-view-1");
      await page.keyboard.press("Tab");
      assert.equal(await focused(), "nav-requests");
      await page.keyboard.press("Enter");
      await page.waitForFunction(() => location.hash === "#requests", WAIT);
      // Every region is named by its heading; every table has a caption.
      const unnamed = await page.$$eval(
        "section[aria-labelledby]",
        (found) =>
          found.filter((section) =>
            document.getElementById(
              section.getAttribute("aria-labelledby")!,
            ) === null
          ).length,
      );
      assert.equal(unnamed, 0);
      const tables = await page.$$eval(
        "table",
        (found) => found.map((table) => table.caption?.textContent ?? ""),
      );
      assert.ok(tables.length > 5, String(tables.length));
      assert.ok(tables.every((caption) => caption !== ""));
    } finally {
      await page.close();
      assert.equal((await server.stop()).code, 0);
    }
  });

  it("shows a config that fails to load on the page and as one line in the terminal, then its fix", async () => {
    const config = `${folder}/broken.config.ts`;
    await Deno.writeTextFile(
      config,
      'throw new Error("config exploded\\nsecond line of the message");\n',
    );
    const server = await serve([config]);
    const page = await browser.newPage();
    try {
      await page.goto(server.url);
      await page.waitForSelector("#config-error", WAIT);
      const shown = await page.$eval(
        "#config-error",
        (element) => element.textContent ?? "",
      );
      assert.match(shown, /config .*broken\.config\.ts failed to load/);
      assert.match(shown, /config exploded/);
      assert.doesNotMatch(shown, /second line|\bat file:/);
      const stderr = server.stderr().trimEnd().split("\n");
      assert.equal(stderr.length, 1, server.stderr());
      assert.match(
        stderr[0],
        /^rxprompt: config error: config .*broken\.config\.ts failed to load: .*config exploded$/,
      );
      await Deno.writeTextFile(
        config,
        `import { SystemPrompt } from ${
          JSON.stringify(repoPath("mod.ts"))
        };\nconst prompt = new SystemPrompt();\nprompt.section({ name: "fixed", order: 1, text: "Fixed." });\nexport default prompt;\n`,
      );
      await page.waitForSelector('#view-global [data-section="fixed"]', WAIT);
      assert.equal(await page.$("#config-error"), null);
    } finally {
      await page.close();
      assert.equal((await server.stop()).code, 0);
    }
  });

  it("shows the deferred tools in a table of their own, out of the totals", async () => {
    const config = `${folder}/deferred.config.ts`;
    await Deno.writeTextFile(
      config,
      `import { SystemPrompt } from ${JSON.stringify(repoPath("mod.ts"))};
const prompt = new SystemPrompt({ includeHarnessIdentity: false });
const schema = { type: "object", properties: {} };
prompt.section({ name: "rules", order: 10, text: "Be brief." });
prompt.tools(() => ({
  schemas: [{ name: "read_file", description: "Read a file.", parameters: schema }],
}));
prompt.fork({ label: "crm" }).tools(() => ({
  schemas: [
    { name: "crm_find", description: "Find a contact.", parameters: schema },
    { name: "crm_log_call", description: "Log a call.", parameters: schema },
  ],
}), { defer: true });
prompt.toolGate(() => ["read_file", "crm_find"]);
export default prompt;
`,
    );
    const server = await serve([config]);
    const page = await browser.newPage();
    try {
      await page.goto(server.url);
      await page.waitForSelector("body[data-status=ready]", WAIT);
      const tools = await rowsOf(page, "view-global", "tool");
      assert.deepEqual(Object.keys(tools), ["read_file"]);
      const deferred = await rowsOf(page, "view-global", "deferred-tool");
      assert.deepEqual(Object.keys(deferred), ["crm_find", "crm_log_call"]);
      assert.equal(deferred.crm_find.contributor, "registry/crm (global)");
      assert.match(deferred.crm_find.text, /yes$/);
      assert.match(deferred.crm_log_call.text, /no: inactive, left out by/);
      const heading = await page.$eval(
        '#view-global [data-part="deferredTools"] h3',
        (element) => element.textContent ?? "",
      );
      assert.match(heading, /^Deferred tools \(2\)/);
      const totals = await page.$eval(
        "#view-global .totals",
        (element) => element.textContent ?? "",
      );
      assert.match(totals, /of tools \(1\)/);
    } finally {
      await page.close();
      assert.equal((await server.stop()).code, 0);
    }
  });

  it("refuses another host's name and a non-loopback bind, and closes on SIGINT with a stream open", async () => {
    const server = await serve([CONFIG]);
    const { port } = new URL(server.url);
    const ask = async (host: string) => {
      const connection = await Deno.connect({
        hostname: "127.0.0.1",
        port: Number(port),
      });
      await connection.write(
        new TextEncoder().encode(
          `GET /state HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
        ),
      );
      const answer = await new Response(connection.readable).text();
      return answer.split("\r\n", 1)[0];
    };
    assert.match(await ask("evil.example"), /^HTTP\/1\.1 403/);
    assert.match(await ask(`evil.example:${port}`), /^HTTP\/1\.1 403/);
    assert.match(await ask(`127.0.0.1:${port}`), /^HTTP\/1\.1 200/);
    assert.match(await ask(`localhost:${port}`), /^HTTP\/1\.1 200/);
    const events = await fetch(server.url + "events");
    const reader = events.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    assert.match(first, /event: state\ndata: \{/);
    const { code, stdout } = await server.stop();
    assert.equal(code, 0);
    assert.equal(stdout.at(-1), "rxprompt inspect: stopped");
    // The stream ended with the server.
    while (!(await reader.read()).done) { /* drain */ }
    await assert.rejects(fetch(server.url + "state"));

    const state$ = new BehaviorSubject<InspectorState>({
      config: "x",
      sequence: 1,
      status: "loading",
      timeoutMs: 10_000,
      scopes: [],
      charting: false,
      charts: [],
      chartErrors: [],
    });
    for (const host of ["0.0.0.0", "192.168.1.2", "::"]) {
      await assert.rejects(
        listen({ host, port: 0, state$ }),
        (error: unknown) =>
          error instanceof CliError &&
          error.message.includes("binds 127.0.0.1 only") &&
          error.message.includes(JSON.stringify(host)),
      );
    }
  });
});
