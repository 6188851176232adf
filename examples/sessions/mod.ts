/**
 * The example sessions of the cache report, by name (SPEC 8.8). Each is a
 * module whose default export builds the session afresh (`rxprompt
 * simulate` takes any of them) and whose `volatileSections` names the
 * sections its author knows to change (the `static-first` way puts them at
 * the end of the system prompt).
 *
 * @module
 */

import * as codingAgent from "./coding_agent.ts";
import * as subAgents from "./sub_agents.ts";
import * as supportBot from "./support_bot.ts";
import * as pauses from "./pauses.ts";
import * as onCall from "./on_call.ts";
import type { CacheSession } from "../../adapters/cache/mod.ts";

/**
 * How a session registers its scenario: as the README advises
 * (`"readme"`, the default: tool gates, often-changing facts as runtime
 * context) or as only the 0.2 README would (`"0.2"`: gated tools left out
 * by their provider, an edited section in the system prompt). The scenario
 * (what changes when, the conversation) is the same.
 */
export interface SessionOptions {
  registration?: "0.2" | "readme";
}

/** A session module: its default export and the sections it changes. */
export interface SessionModule {
  /** Builds the session afresh. */
  default: (options?: SessionOptions) => Promise<CacheSession>;
  /** Sections the session's author knows change (static-first uses it). */
  volatileSections?: readonly string[];
}

/** Every example session. */
export const SESSIONS: Readonly<Record<string, SessionModule>> = {
  "coding-agent": codingAgent,
  "sub-agents": subAgents,
  "support-bot": supportBot,
  pauses,
  "on-call": onCall,
};
