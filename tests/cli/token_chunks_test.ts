/**
 * The `o200k_base` chunks `rxprompt report` finds in an ASCII text by
 * reading its code units are the pre-tokenizer pattern's matches, chunk
 * for chunk, and a chunk's count is looked up where it lies.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  chunkEnd,
  ChunkTable,
  isAscii,
  O200K_CHUNKS,
} from "../../cli/token_chunks.ts";
import { randomOf } from "../conversation/long_recording.ts";

/** Every ASCII code unit, the ones the pattern tells apart the likeliest. */
const UNITS = [
  ..."aZsSdDmMtTlLvVeErR'09 \t\n\r\v\f/.(_\"\\{}",
  ...Array.from({ length: 128 }, (_, code) => String.fromCharCode(code)),
];

/** The chunks `chunkEnd` finds in `text`. */
function chunksOf(text: string): string[] {
  const chunks: string[] = [];
  for (let start = 0; start < text.length;) {
    const end = chunkEnd(text, start);
    assert.ok(end > start, `no chunk at ${start} of ${JSON.stringify(text)}`);
    chunks.push(text.slice(start, end));
    start = end;
  }
  return chunks;
}

describe("chunkEnd", () => {
  it("finds the pattern's chunks in random ASCII texts", () => {
    const random = randomOf(200);
    for (let round = 0; round < 20_000; round++) {
      const length = 1 + random(24);
      let text = "";
      while (text.length < length) text += UNITS[random(UNITS.length)];
      assert.deepEqual(
        chunksOf(text),
        text.match(O200K_CHUNKS),
        JSON.stringify(text),
      );
    }
  });

  it("finds them in every pair and triple of the units that matter", () => {
    const units = [..."aZ'sl0 \t\n\r/.\v"];
    for (const a of units) {
      for (const b of units) {
        for (const c of ["", ...units]) {
          const text = a + b + c;
          assert.deepEqual(chunksOf(text), text.match(O200K_CHUNKS));
        }
      }
    }
  });

  it("finds them in a tool output's JSON and in prose", () => {
    const texts = [
      '{"type":"function_call_output","output":"1\\tconst a_1 = await ' +
      "and(61);\\n2\\tconst That's_2 = WE'LL(498);\\r\\n  }\\n\\n   x\"}",
      "The  function's   result,\tthey'VE said:\n\n  // 1234567 END\n ",
    ];
    for (const text of texts) {
      assert.deepEqual(chunksOf(text), text.match(O200K_CHUNKS));
    }
  });

  it("leaves a text with a unit outside ASCII to the pattern", () => {
    assert.equal(isAscii("plain \t text 42 ~"), true);
    assert.equal(isAscii("café"), false);
    assert.equal(isAscii("\u0080"), false);
  });
});

describe("ChunkTable", () => {
  it("counts each distinct chunk once, wherever it lies", () => {
    const counted: string[] = [];
    const table = new ChunkTable((chunk) => {
      counted.push(chunk);
      return chunk.length;
    });
    const text = "abc abc xabc";
    assert.equal(table.count(text, 0, 3), 3);
    assert.equal(table.count(text, 4, 7), 3);
    assert.equal(table.count(text, 9, 12), 3);
    assert.equal(table.count(text, 3, 7), 4);
    assert.deepEqual(counted, ["abc", " abc"]);
  });

  it("tells apart chunks of any ASCII units, short and long", () => {
    const random = randomOf(7);
    /** A count that differs for nearly every chunk. */
    const countOf = (chunk: string) => {
      let hash = chunk.length;
      for (const unit of chunk) {
        hash = (hash * 31 + unit.charCodeAt(0)) % 100_003;
      }
      return hash;
    };
    const counted = new Map<string, number>();
    const table = new ChunkTable((chunk) => {
      counted.set(chunk, (counted.get(chunk) ?? 0) + 1);
      return countOf(chunk);
    });
    // Few units, so that chunks repeat and differ by one unit or length.
    const units = ["\u0000", "a", "b", "\u007f", " "];
    let text = "";
    const chunks: [number, number][] = [];
    for (let round = 0; round < 20_000; round++) {
      const length = 1 + random(20);
      const start = text.length;
      for (let at = 0; at < length; at++) text += units[random(units.length)];
      chunks.push([start, text.length]);
    }
    for (const [start, end] of chunks) {
      const chunk = text.slice(start, end);
      assert.equal(table.count(text, start, end), countOf(chunk), chunk);
    }
    assert.ok([...counted.values()].every((times) => times === 1));
    assert.ok(counted.size > 5000, `${counted.size} distinct chunks`);
  });

  it("tells apart two long chunks of one length and one hash", () => {
    // Two chunks whose 32-bit FNV-1a hashes are equal.
    const text = "mhmldnbsuyxkmi lwqvdxdqhigbmz";
    const table = new ChunkTable((chunk) => chunk.charCodeAt(0));
    assert.equal(table.count(text, 0, 14), "m".charCodeAt(0));
    assert.equal(table.count(text, 15, 29), "l".charCodeAt(0));
    assert.equal(table.count(text, 0, 14), "m".charCodeAt(0));
  });

  it("keeps every count as it grows", () => {
    const table = new ChunkTable((chunk) => Number(chunk) % 1000);
    const text = Array.from({ length: 5000 }, (_, n) => String(n)).join(",");
    const starts: [number, number][] = [];
    for (let start = 0; start < text.length;) {
      const end = text.indexOf(",", start);
      const stop = end === -1 ? text.length : end;
      starts.push([start, stop]);
      start = stop + 1;
    }
    for (const [start, end] of starts) table.count(text, start, end);
    for (const [start, end] of starts) {
      assert.equal(
        table.count(text, start, end),
        Number(text.slice(start, end)) % 1000,
      );
    }
  });
});
