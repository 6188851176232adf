/**
 * Session (d): a research assistant whose user steps away: five pauses of
 * 7, 12, 70, 6 and 25 minutes between bursts of steps 20 seconds apart, so
 * 5-minute entries lapse (and a 1-hour one once). 48 steps, one thread.
 *
 * ```sh
 * deno run -A cli/main.ts simulate examples/sessions/pauses.ts
 * ```
 *
 * @module
 */

import { SystemPrompt } from "../../mod.ts";
import type { CacheSession } from "../../adapters/cache/mod.ts";
import { Conversations, date, tool } from "./_common.ts";
import { instructions, RESEARCH, seeded } from "./_text.ts";

/** Sections the author knows to change during the session (none here). */
export const volatileSections: readonly string[] = [];

/** The number of steps. */
export const STEPS = 48;

const MINUTE = 60_000;
/** Step index → the pause before it. */
const PAUSES: Record<number, number> = {
  8: 7 * MINUTE,
  16: 12 * MINUTE,
  24: 70 * MINUTE,
  32: 6 * MINUTE,
  40: 25 * MINUTE,
};

const METHOD = [
  "Cite the source of every number, with the page or table it comes from.",
  "Say how confident you are, and why, when sources disagree.",
  "Prefer primary sources to summaries of them.",
  "Keep a list of open questions and update it when one is answered.",
  "Write for a reader who knows the field but not this project.",
  "Separate what the data shows from what you infer from it.",
];

/** The session: a fresh registry and conversation. */
export default function session(): Promise<CacheSession> {
  const random = seeded(44);
  const prompt = new SystemPrompt({
    persona: "You are Quill, a research assistant for a product team.",
  });
  prompt.section({
    name: "method",
    order: 10,
    text: instructions(random, "Method", METHOD, 1400),
  });
  prompt.tools(() => ({
    schemas: [
      tool("web_search", "Search the web and return the top results.", {
        query: "The search query.",
      }),
      tool("fetch_page", "Fetch a web page and return its main text.", {
        url: "The page's address.",
      }),
      tool("read_sheet", "Read a range of the team's spreadsheet.", {
        range: "A range like Quotes!A1:F40.",
      }),
      tool("write_notes", "Append to the project's research notes.", {
        text: "Markdown to append.",
      }),
    ],
  }));
  prompt.runtimeContext({
    name: "date",
    order: 0,
    text: () => `Today is ${date(6)}.`,
  });

  const conversations = new Conversations(404);
  let time = 0;
  const steps = Array.from({ length: STEPS }, (_, index) => () => {
    time += index === 0 ? 0 : PAUSES[index] ?? 20_000;
    // Every answer goes to the person, who may step away after it.
    return {
      messages: conversations.turn("main", RESEARCH),
      time,
      awaiting: "person" as const,
    };
  });
  return Promise.resolve({ prompt, steps });
}
