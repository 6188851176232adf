/**
 * Deterministic conversation text for the example sessions: a seeded
 * generator of realistic-looking turns of about 300 tokens (o200k_base),
 * so every run of a session sends the same bytes.
 *
 * @module
 */

/** A seeded pseudo-random source (mulberry32). */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One of `items`, chosen by `random`. */
export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}

/** The vocabulary of one kind of conversation. */
export interface Topic {
  readonly subjects: readonly string[];
  readonly things: readonly string[];
  readonly asks: readonly string[];
  readonly findings: readonly string[];
}

/** A coding agent's conversation. */
export const CODING: Topic = {
  subjects: [
    "the cache layer",
    "the request parser",
    "the retry policy",
    "the session store",
    "the config loader",
    "the token counter",
    "the migration script",
    "the CLI entry point",
    "the websocket handler",
    "the rate limiter",
  ],
  things: [
    "src/server/router.ts",
    "src/db/pool.ts",
    "tests/integration/auth_test.ts",
    "package.json",
    "src/lib/backoff.ts",
    "docs/architecture.md",
    "scripts/release.sh",
    "src/api/handlers/orders.ts",
    "src/util/json_schema.ts",
    "ci/pipeline.yml",
  ],
  asks: [
    "Can you find out why",
    "Please refactor",
    "Write a test that shows how",
    "Check whether",
    "Explain in a few lines how",
    "Make sure that",
    "Look into the failure where",
    "Fix the bug in which",
  ],
  findings: [
    "the function returns early when the list is empty, so the counter is never reset",
    "the timeout is read from the environment once at start-up and never refreshed",
    "two callers share one mutable buffer, which explains the interleaved output",
    "the error is swallowed by a catch block that only logs at debug level",
    "the schema allows a null id, which the database then rejects with a constraint error",
    "the retry loop does not back off, so it hammers the upstream service",
    "the test relies on the order of a map's keys, which differs between runtimes",
    "the handler awaits inside a loop where a single batched query would do",
  ],
};

/** A customer-support conversation. */
export const SUPPORT: Topic = {
  subjects: [
    "my last order",
    "the invoice for March",
    "my subscription",
    "the delivery address",
    "the refund I asked for",
    "my account email",
    "the damaged parcel",
    "the loyalty points",
  ],
  things: [
    "order #48213",
    "order #51877",
    "invoice INV-2231",
    "the premium plan",
    "parcel 1Z999AA10123456784",
    "the annual plan",
    "gift card GC-7741",
  ],
  asks: [
    "I need help with",
    "Could you check",
    "I'm writing again about",
    "Why hasn't anyone answered about",
    "Please cancel",
    "Can you update",
  ],
  findings: [
    "the carrier marked the parcel as delivered to a neighbour on Tuesday",
    "the refund was approved and takes three to five business days to appear",
    "the plan renews on the first of the month unless it is cancelled before",
    "the address change applies to orders placed after today only",
    "the points expire twelve months after they were earned",
    "the invoice was issued to the company name on the account",
  ],
};

/** A research assistant's conversation. */
export const RESEARCH: Topic = {
  subjects: [
    "the survey results",
    "the literature on caching",
    "the benchmark numbers",
    "the pricing comparison",
    "the user interviews",
    "the latency figures",
    "the market sizing",
  ],
  things: [
    "the 2025 report",
    "table 3 of the appendix",
    "the interview notes from Lisbon",
    "the spreadsheet of vendor quotes",
    "the draft summary",
    "the list of open questions",
  ],
  asks: [
    "Summarise",
    "Compare",
    "What do we know about",
    "Find the weak points in",
    "Draft a paragraph on",
  ],
  findings: [
    "the median improved by eleven percent while the tail got slightly worse",
    "two of the sources disagree on the sample size, and neither explains why",
    "the effect disappears once the outliers from the first week are removed",
    "the cheapest vendor charges extra for the support tier we would need",
    "most respondents mention onboarding as the main source of friction",
  ],
};

const CONNECTIVES = [
  "First",
  "Then",
  "After that",
  "On closer inspection",
  "To be precise",
  "In short",
  "As a next step",
  "For the record",
];

/** A user turn of about `tokens` tokens. */
export function userTurn(
  random: () => number,
  topic: Topic,
  tokens = 300,
): string {
  const parts = [
    `${pick(random, topic.asks)} ${pick(random, topic.subjects)} in ${
      pick(random, topic.things)
    }?`,
  ];
  while (length(parts) < tokens * 4.2) {
    parts.push(
      `${pick(random, CONNECTIVES)}, I noticed that ${
        pick(random, topic.findings)
      }; it started after the change to ${pick(random, topic.things)}, and ${
        pick(random, topic.subjects)
      } may be involved.`,
    );
  }
  return parts.join(" ");
}

/** An assistant turn of about `tokens` tokens. */
export function assistantTurn(
  random: () => number,
  topic: Topic,
  tokens = 300,
): string {
  const parts = [`I looked at ${pick(random, topic.things)}.`];
  let n = 1;
  while (length(parts) < tokens * 4.2) {
    parts.push(
      `${n}. ${pick(random, CONNECTIVES)}: ${pick(random, topic.findings)}. ` +
        `This affects ${pick(random, topic.subjects)}, so I checked ${
          pick(random, topic.things)
        } as well.`,
    );
    n += 1;
  }
  parts.push("Shall I go ahead with the change?");
  return parts.join("\n");
}

function length(parts: readonly string[]): number {
  return parts.reduce((sum, part) => sum + part.length + 1, 0);
}

/** A block of static instructions of about `tokens` tokens. */
export function instructions(
  random: () => number,
  title: string,
  rules: readonly string[],
  tokens: number,
): string {
  const lines = [`## ${title}`];
  let n = 0;
  while (length(lines) < tokens * 4.4) {
    const rule = rules[n % rules.length];
    const round = Math.floor(n / rules.length);
    lines.push(
      round === 0
        ? `${n + 1}. ${rule}`
        : `${n + 1}. ${rule} This holds for ${
          pick(random, SCOPES)
        } too, unless the task says otherwise.`,
    );
    n += 1;
  }
  return lines.join("\n");
}

const SCOPES = [
  "generated code",
  "scripts and tooling",
  "documentation examples",
  "tests and fixtures",
  "configuration files",
  "one-off experiments",
];
