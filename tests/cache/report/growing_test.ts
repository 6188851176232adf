/**
 * A conversation's report reads its growing bodies each item once, and an
 * item sent with a mark (a copy in place of the shared one) as the last
 * request read it when it is the same data: the report is `cacheReport`'s
 * of the whole bodies whether a marked copy is the last request's again,
 * the same item marked elsewhere or with another lifetime.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { cacheReport, readReportedUsage } from "../../../adapters/cache/mod.ts";
import { RULE_TABLE } from "../../../adapters/forms.ts";
import {
  type GrowingBody,
  type GrowingRequest,
  wholeBody,
} from "../../../src/cache/report/growing.ts";
import { growingCacheReport } from "../../../src/cache/report/report.ts";
import { anthropicMessage, anthropicUsage } from "./reported_fixtures.ts";

const countTokens = (text: string): number => Math.ceil(text.length / 4);
const words = (n: number) =>
  Array.from({ length: n }, (_, at) => `word${at}`).join(" ");

/** A user message of two text parts, `marks` on the parts they name. */
function userMessage(
  parts: readonly string[],
  marks: Readonly<Record<number, string>> = {},
): unknown {
  return {
    role: "user",
    content: parts.map((text, at) =>
      marks[at] === undefined ? { type: "text", text } : {
        type: "text",
        text,
        cache_control: { type: "ephemeral", ttl: marks[at] },
      }
    ),
  };
}

describe("growingCacheReport", () => {
  it("reads a marked copy as its whole body does, again or changed", () => {
    const parts = [words(400), words(300)];
    const fields = { model: "claude-sonnet-4-5", max_tokens: 1024 };
    const items: unknown[] = [
      { role: "user", content: words(500) },
      { role: "assistant", content: "Reading the files." },
      userMessage(parts),
    ];
    const marks: Readonly<Record<number, string>>[] = [
      { 0: "5m" },
      { 0: "5m" }, // the same data again, another object
      { 1: "5m" }, // the same item marked on its other part
      { 1: "1h" }, // another lifetime
      { 0: "1h", 1: "1h" },
      { 0: "1h", 1: "1h" },
    ];
    const requests = marks.map((marked, at): GrowingRequest => {
      const body: GrowingBody = {
        fields,
        name: "messages",
        items,
        count: items.length,
        replaced: new Map([[2, userMessage(parts, marked)]]),
        extra: [],
      };
      return {
        body,
        time: at * 1000,
        usage: readReportedUsage(
          anthropicMessage(`msg_${at}`, anthropicUsage(10, 0, { "5m": 0 })),
          "anthropic",
        ),
      };
    });
    const options = { provider: "anthropic" as const, countTokens };
    const whole = cacheReport(
      requests.map((request) => ({
        ...request,
        body: wholeBody(request.body),
      })),
      options,
    );
    assert.deepEqual(
      growingCacheReport(requests, options, RULE_TABLE),
      whole,
    );
    // The marks moved and changed lifetime: the estimates tell them apart.
    const written = whole.requests.map((request) =>
      request.estimate?.writtenTokens
    );
    assert.ok(new Set(written).size > 1, JSON.stringify(written));
  });
});
