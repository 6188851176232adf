/**
 * Issue 45: `deno task bench:cache --markdown` prints the table it printed
 * before the house was rebuilt (`bench_cache.txt`, its time line and the
 * date of its first line aside):
 * every session, way and provider simulated to the same figures.
 */
import { it } from "node:test";
import assert from "node:assert/strict";
import { ROOT } from "../cli/cli_process.ts";

it("bench:cache --markdown prints the pinned table", async () => {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--allow-read",
      "--allow-env",
      "--allow-sys=hostname",
      "scripts/bench_cache.ts",
      "--markdown",
    ],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stdout);
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  const pinned = await Deno.readTextFile(
    new URL("bench_cache.txt", import.meta.url),
  );
  const lines = text.split("\n").filter((line) => !/^\(.* s\)$/.test(line));
  // The first line dates the run: the figures are what is pinned.
  const undated = (table: string) =>
    table.replace(/^Cache report, \d{4}-\d{2}-\d{2}:/, "Cache report, DATE:");
  assert.equal(undated(lines.join("\n")), undated(pinned));
});
