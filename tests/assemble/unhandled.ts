/** Catching the unhandled rejections a piece of work leaves behind. */
import process from "node:process";

import { macrotask } from "../assertions.ts";

/**
 * Runs `work`, waits a few macrotasks, and returns the reasons of the
 * rejections nobody handled meanwhile (which would end the process).
 */
export async function unhandledDuring(
  work: () => Promise<unknown>,
): Promise<unknown[]> {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };
  process.on("unhandledRejection", onUnhandled);
  try {
    await work();
    for (let turn = 0; turn < 3; turn++) await macrotask();
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
  return unhandled;
}
