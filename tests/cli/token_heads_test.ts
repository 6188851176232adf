/**
 * `rxprompt report`'s token counts: a long text counted as its head
 * (shared with the texts that start with it) plus its tail gives the
 * `o200k_base` count of the whole text, and the command's report is the
 * library's report with the plain tokenizer, figure for figure.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  chunkCounter,
  headSharingCounter,
  lastCut,
} from "../../cli/token_heads.ts";
import { reportOfFile } from "../../cli/report.ts";
import { tokenCounter } from "../../cli/tokens.ts";
import {
  LONG_FORMS,
  longRecording,
  randomOf,
  resumedLong,
} from "../conversation/long_recording.ts";

/** Pieces that meet at a letter-digit cut in every way the chunker cares. */
const PIECES = [
  "a",
  "Z",
  "é",
  "1",
  "42",
  "2026",
  " ",
  "  ",
  "\n",
  "\r\n",
  "\t",
  "\\n",
  "'s",
  "'",
  "'LL",
  "/",
  "_",
  "(",
  ");",
  '"',
  '":"',
  "{}",
  "ab",
  "CamelCase",
  "x9",
  "é7",
  "😀",
  "ﬁ",
  "\u0301",
  "٣",
  "<|",
];

describe("headSharingCounter", () => {
  it("finds the last digit after an ASCII letter", () => {
    assert.equal(lastCut("ab12 cd3"), 7);
    assert.equal(lastCut("Q7"), 1);
    assert.equal(lastCut("12 34 _5 é6 @7 [8"), 0);
    assert.equal(lastCut("9"), 0);
  });

  it("counts every text as o200k_base counts it whole", async () => {
    const count = await tokenCounter();
    const random = randomOf(49);
    for (let round = 0; round < 400; round++) {
      const parts: string[] = [];
      const length = 256 + random(400);
      while (parts.join("").length < length) {
        parts.push(PIECES[random(PIECES.length)]);
      }
      const text = parts.join("");
      const heads = headSharingCounter(count);
      const chunked = chunkCounter(count);
      // The text, then its prefixes and a copy with another end: the
      // heads they share are counted once and reused.
      assert.equal(heads(text), count(text), JSON.stringify(text));
      assert.equal(chunked(text), count(text), JSON.stringify(text));
      for (const end of [text.length - 1, text.length - 7, 300, 256]) {
        const prefix = text.slice(0, end);
        assert.equal(heads(prefix), count(prefix), JSON.stringify(prefix));
        assert.equal(chunked(prefix), count(prefix), JSON.stringify(prefix));
        const other = prefix + '","mark":{"mode":"explicit"}}';
        assert.equal(heads(other), count(other), JSON.stringify(other));
      }
    }
  });

  it("leaves a special token to the tokenizer to refuse", async () => {
    const count = await tokenCounter();
    const text = "line1 then <|endoftext|> and more";
    assert.throws(() => count(text), /endoftext/);
    assert.throws(() => chunkCounter(count)(text), /endoftext/);
  });

  it("counts a head shared by several texts once", async () => {
    const count = await tokenCounter();
    const counted: string[] = [];
    const heads = headSharingCounter((text) => {
      counted.push(text);
      return count(text);
    });
    const head = "x".repeat(300) + "line1";
    const texts = [head + '"}]}', head + '","mark":{}}]}', head + '"'];
    for (const text of texts) assert.equal(heads(text), count(text));
    assert.equal(counted.filter((text) => text.length >= 300).length, 1);
  });
});

describe("rxprompt report's counts", () => {
  for (const form of LONG_FORMS) {
    it(`${form}: are the library report's with the plain tokenizer, figure for figure`, async () => {
      const { text } = await longRecording(form, 60);
      const count = await tokenCounter();
      const expected = resumedLong(form, text).report({ countTokens: count });
      const dir = await mkdtemp(join(tmpdir(), "token-heads-"));
      try {
        const file = join(dir, "conversation.jsonl");
        await writeFile(file, text);
        const { report } = await reportOfFile(file, {});
        assert.deepEqual(report, expected);
        assert.ok(expected.requests.length === 60);
      } finally {
        await rm(dir, { recursive: true });
      }
    });
  }

  it("count a Responses recording's repeated heads once", async () => {
    const { text } = await longRecording("responses", 60);
    const count = await tokenCounter();
    let wholeCharacters = 0;
    resumedLong("responses", text).report({
      countTokens: (counted) => {
        wholeCharacters += counted.length;
        return count(counted);
      },
    });
    // The recording's marked tool outputs and partial matches repeat
    // their heads: counted once, the tokenizer reads far fewer characters.
    let headCharacters = 0;
    const heads = headSharingCounter((counted) => {
      headCharacters += counted.length;
      return count(counted);
    });
    resumedLong("responses", text).report({
      countTokens: heads,
    });
    assert.ok(
      headCharacters < wholeCharacters * 0.75,
      `${headCharacters} of ${wholeCharacters} characters counted`,
    );
  });
});
