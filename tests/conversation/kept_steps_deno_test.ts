/**
 * SPEC 10.4: a kept step holds its fields compactly (times as ms, no usage
 * read the line reads again, marks and allowed tools shared with the step
 * before) and gives them back as its recording line holds them.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type KeptStep,
  KeptSteps,
  keptTime,
} from "../../src/conversation/kept_steps.ts";
import type { ReportedUsage } from "../../src/cache/report/usage_types.ts";

const T = Date.UTC(2026, 11, 7, 9, 0, 0);

function readUsage(response: unknown): ReportedUsage {
  const { usage } = response as { usage: { input: number } };
  return {
    source: "toy",
    diagnosis: { status: "none" },
    inputTokens: usage.input,
  } as ReportedUsage;
}

function step(
  index: number,
  fields: Partial<KeptStep> = {},
): KeptStep {
  return {
    step: index,
    at: 2 * index,
    tail: [{ role: "user", text: `q${index}` }],
    marks: [],
    awaiting: "agent",
    response: { usage: { input: 10 * index } },
    usage: { input: 10 * index },
    reported: undefined,
    sent: T + 1_000 * index,
    time: T + 1_000 * index + 500,
    ...fields,
  };
}

describe("KeptSteps", () => {
  it("writes a step's times and usage read back in the line's order", () => {
    const kept = new KeptSteps(readUsage);
    kept.push(step(1));
    const line = kept.at(0);
    assert.equal(line.sent, new Date(T + 1_000).toISOString());
    assert.equal(line.time, new Date(T + 1_500).toISOString());
    assert.deepEqual(line.reported, readUsage({ usage: { input: 10 } }));
    assert.deepEqual(Object.keys(line).slice(-4), [
      "usage",
      "reported",
      "sent",
      "time",
    ]);
  });

  it("gives a step read from a recording back as it was read", () => {
    const kept = new KeptSteps(readUsage);
    const read = {
      ...step(1),
      reported: readUsage({ usage: { input: 3 } }),
      sent: "2026-12-07T09:00:01.000Z",
      time: "2026-12-07T09:00:01.500Z",
    };
    kept.resume([read as never]);
    assert.equal(kept.at(0), read);
  });

  it("keeps a clock's non-time as the ISO text of when it was kept", () => {
    const before = Date.now();
    const kept = keptTime(Number.NaN);
    assert.equal(typeof kept, "string");
    assert.ok(Date.parse(kept as string) >= before - 1);
    assert.equal(keptTime(T), T);
  });

  it("shares marks, mark values and allowed tools with the step before", () => {
    const kept = new KeptSteps(readUsage);
    const mark = () => ({ type: "ephemeral" });
    const allowed = () => ["read_file", "shell"];
    kept.push(step(1, {
      marks: [{ message: 1, block: 0, mark: mark() }],
      allowedTools: allowed(),
    }));
    kept.push(step(2, {
      marks: [
        { message: 1, block: 0, mark: mark() },
        { message: 3, block: 0, mark: mark() },
      ],
      allowedTools: allowed(),
    }));
    kept.push(step(3, {
      marks: [
        { message: 1, block: 0, mark: mark() },
        { message: 3, block: 0, mark: mark() },
      ],
      allowedTools: ["read_file"],
    }));
    const [one, two, three] = kept.all();
    assert.equal(two.marks[0], one.marks[0]);
    assert.equal(two.marks[1].mark, one.marks[0].mark);
    assert.equal(three.marks, two.marks);
    assert.equal(two.allowedTools, one.allowedTools);
    assert.deepEqual(three.allowedTools, ["read_file"]);
    assert.deepEqual(JSON.parse(JSON.stringify(two.marks)), [
      { message: 1, block: 0, mark: { type: "ephemeral" } },
      { message: 3, block: 0, mark: { type: "ephemeral" } },
    ]);
  });
});
