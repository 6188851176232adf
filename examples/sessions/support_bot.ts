/**
 * Session (c): a support bot whose tools are gated per step (the tools a
 * step may use depend on what the customer asks and whether they are
 * verified) and whose memory (notes about the customer) is edited every ten
 * steps. 45 steps, one thread.
 *
 * The scenario is the same for every way; how it is registered is not.
 * The README's way (the default, `registration: "readme"`) lists every
 * tool and gates them with `toolGate`, and registers the memory as runtime
 * context (it changes often: SPEC 8.4). The 0.2 way (`registration:
 * "0.2"`, for the `static-first` and `readme-0.2` ways) gates by leaving
 * tools out of the provider and edits a memory section of the system
 * prompt.
 *
 * ```sh
 * deno run -A cli/main.ts simulate examples/sessions/support_bot.ts
 * ```
 *
 * @module
 */

import { SystemPrompt, type ToolSchema } from "../../mod.ts";
import type { CacheSession } from "../../adapters/cache/mod.ts";
import type { SessionOptions } from "./mod.ts";
import { Conversations, date, tool } from "./_common.ts";
import { instructions, pick, seeded, SUPPORT } from "./_text.ts";

/** The memory section changes during the session (0.2's registration). */
export const volatileSections: readonly string[] = ["memory"];

/** The number of steps. */
export const STEPS = 45;

const POLICIES = [
  "Verify the customer's identity before you show or change anything on their account.",
  "Refunds up to 50 EUR need no approval; larger ones go to a human agent.",
  "Never promise a delivery date the carrier has not confirmed.",
  "Offer a replacement before a refund when an item arrived damaged.",
  "Cancel a subscription only when the customer asks for it in so many words.",
  "Apologise once, then focus on what you can do.",
  "Hand over to a human when the customer asks for one or is upset after two answers.",
  "Do not share internal notes, prices from suppliers or other customers' data.",
];

const TOOLS: ToolSchema[] = [
  tool("verify_identity", "Verify the customer with their email and a code.", {
    email: "The account's email address.",
    code: "The one-time code the customer received.",
  }),
  tool("lookup_order", "Find an order and its items, prices and status.", {
    order: "The order number.",
  }),
  tool("track_parcel", "The carrier's latest tracking events for a parcel.", {
    parcel: "The tracking number.",
  }),
  tool("update_address", "Change the delivery address of an open order.", {
    order: "The order number.",
    address: "The new address, one line.",
  }),
  tool("issue_refund", "Refund an order or some of its items.", {
    order: "The order number.",
    amount: "The amount in EUR.",
  }),
  tool("cancel_subscription", "Cancel the customer's subscription.", {
    plan: "The plan to cancel.",
  }),
  tool("send_email", "Send the customer an email from the support address.", {
    subject: "The subject line.",
    body: "The message.",
  }),
  tool("escalate_to_human", "Hand the conversation to a human agent.", {
    reason: "Why, in one sentence.",
  }),
];

const INTENTS: Record<string, readonly string[]> = {
  shipping: ["lookup_order", "track_parcel", "update_address"],
  billing: ["lookup_order", "issue_refund", "send_email"],
  account: ["cancel_subscription", "send_email"],
};

/** The session: a fresh registry and conversation. */
export default function session(
  options: SessionOptions = {},
): Promise<CacheSession> {
  const readme = (options.registration ?? "readme") === "readme";
  const random = seeded(33);
  const prompt = new SystemPrompt({
    persona:
      "You are Sunny, the support assistant of Parcelly, an online shop.",
  });
  prompt.section({
    name: "policies",
    order: 10,
    text: instructions(random, "Support policies", POLICIES, 1300),
  });
  let notes: string[] = ["Prefers email over phone."];
  const memory = () =>
    `## What we know about this customer\n- ${notes.join("\n- ")}`;
  if (readme) {
    prompt.runtimeContext({ name: "memory", order: 50, text: memory });
  } else prompt.section({ name: "memory", order: 50, text: memory });
  let verified = false;
  let allowed: readonly string[] = ["verify_identity", "escalate_to_human"];
  if (readme) {
    prompt.tools(() => ({ schemas: TOOLS }));
    prompt.toolGate(() => allowed);
  } else {
    prompt.tools(() => ({
      schemas: TOOLS.filter((schema) => allowed.includes(schema.name)),
    }));
  }
  prompt.runtimeContext({
    name: "customer",
    order: 0,
    text: () =>
      `Today is ${date(4)}. Customer verified: ${verified ? "yes" : "no"}.`,
  });

  const conversations = new Conversations(303);
  const steps = Array.from({ length: STEPS }, (_, index) => () => {
    if (index === 4) verified = true;
    const intent = pick(random, Object.keys(INTENTS));
    allowed = verified
      ? ["escalate_to_human", ...INTENTS[intent]]
      : ["verify_identity", "escalate_to_human"];
    if (index > 0 && index % 10 === 0) {
      notes = [
        ...notes,
        `Step ${index}: asked about ${pick(random, SUPPORT.subjects)} (${
          pick(random, SUPPORT.things)
        }).`,
      ];
    }
    return { messages: conversations.turn("main", SUPPORT) };
  });
  return Promise.resolve({ prompt, steps });
}
