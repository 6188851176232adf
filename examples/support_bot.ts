/**
 * A customer-support bot with cache breakpoints, as an `rxprompt` config:
 *
 * ```sh
 * deno task rxprompt render examples/support_bot.ts --format anthropic
 * deno task rxprompt inspect examples/support_bot.ts --scope enterprise
 * ```
 *
 * The long, stable sections (policies, product guide) come first and end
 * with cache breakpoints, so a provider caches them once; the plan of the
 * customer, which differs per scope, comes after them. Today's date is a
 * runtime context entry: a volatile fact kept out of the cached system
 * prompt and sent after the conversation's last message when it changes
 * (`runtimeContextUpdate`; the README's "The request loop").
 *
 * @module
 */

import { type ScopeKey, SystemPrompt } from "../mod.ts";

/** What the support loop passes to every assembly. */
export interface SupportContext {
  scope?: ScopeKey;
  signal?: AbortSignal;
  /** Today, as `YYYY-MM-DD`. */
  today?: string;
}

const prompt = new SystemPrompt<SupportContext>({
  persona: "You are the support assistant of Acme Cloud. Be warm, exact " +
    "and brief. Never promise what the policies below do not allow.",
  includeHarnessIdentity: false,
});

const policies = prompt.fork({ label: "policies" });
policies.section({
  name: "policies:refunds",
  order: 100,
  text: "Refunds: a customer may cancel within 30 days of a charge for a " +
    "full refund. After 30 days, offer account credit for the unused " +
    "period instead. Never refund a charge older than one year.",
});
policies.section({
  name: "policies:privacy",
  order: 110,
  text: "Privacy: never reveal account data to anyone but the verified " +
    "owner. Ask for the account email and the last four digits of the " +
    "card on file before discussing billing.",
  cacheBreakpoint: true,
});

const guide = prompt.fork({ label: "product-guide" });
guide.section({
  name: "guide:products",
  order: 200,
  text: "Products: Compute (virtual machines, billed per second), Storage " +
    "(objects, billed per GB-month) and Databases (managed Postgres, " +
    "billed per instance-hour). Outages are posted at status.acme.example.",
  cacheBreakpoint: true,
});
guide.tools(() => ({
  schemas: [
    {
      name: "lookup_account",
      description: "Find an account by its email address.",
      parameters: {
        type: "object",
        properties: { email: { type: "string" } },
        required: ["email"],
      },
    },
    {
      name: "open_ticket",
      description: "Escalate to a human agent with a summary.",
      parameters: {
        type: "object",
        properties: {
          summary: { type: "string" },
          priority: { type: "string", enum: ["low", "normal", "urgent"] },
        },
        required: ["summary", "priority"],
      },
    },
  ],
}));

const plans = prompt.fork({ label: "plans" });
plans.variable("plan", () => "Free");
plans.section({
  name: "customer:plan",
  order: 300,
  text: "The customer is on the {{plan}} plan.",
});
const enterprise = prompt.scope("enterprise", { label: "enterprise" });
enterprise.variable("plan", () => "Enterprise");
enterprise.section({
  name: "customer:sla",
  order: 310,
  text: "Enterprise customers have a 99.95% uptime SLA and a named " +
    "account manager; offer to loop them in for any billing dispute.",
});

const clock = prompt.fork({ label: "clock" });
clock.runtimeContext({
  name: "clock:today",
  order: 0,
  text: (context) =>
    `Today is ${context.today ?? new Date().toISOString().slice(0, 10)}.`,
});

export default {
  prompt,
  scopes: { enterprise: "enterprise" },
};
