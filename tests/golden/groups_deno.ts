/**
 * The golden fixtures by group (issue 45): what `scripts/golden_bodies.ts`
 * digests and `bodies_deno_test.ts` rebuilds. Body groups are taken once and
 * never again: the bytes every form sends must not change. Record groups
 * (`save()` and `report()`) are the recording's and the report's JSON.
 */
import { sha256Hex } from "../../src/shared/sha256.ts";
import { resumeAnthropicConversation } from "../../adapters/anthropic/mod.ts";
import {
  resumeChatConversation,
  resumeResponsesConversation,
} from "../../adapters/openai/mod.ts";
import { resumeAiSdkConversation } from "../../adapters/ai_sdk/mod.ts";
import { SystemPrompt } from "../../mod.ts";
import { adapterBodies } from "./adapters.ts";
import {
  type Golden,
  sessionFormGoldens,
  sessionWayBodies,
} from "./drive_deno.ts";
import { options, randomSessions, SCENARIOS } from "./scenarios.ts";
import { countTokens, OPTION_VARIANTS, VARIANTS } from "./variants.ts";

/** The folder of the fixtures. */
export const GOLDEN_DIR = new URL("./", import.meta.url);

/** A value's digest: the first 16 hex digits of its JSON's SHA-256. */
export function digest(value: unknown): string {
  return sha256Hex(JSON.stringify(value) ?? "undefined").slice(0, 16);
}

let sessionForms: Promise<{ bodies: Golden; records: Golden }> | undefined;

function sessionFormsOnce(): Promise<{ bodies: Golden; records: Golden }> {
  return sessionForms ??= sessionFormGoldens();
}

async function scenarioBodies(): Promise<Golden> {
  const golden: Golden = new Map();
  for (const [name, scenario] of Object.entries(SCENARIOS)) {
    for (const variant of VARIANTS) {
      const bodies = await scenario(variant);
      bodies.forEach((body, n) =>
        golden.set(`${name}/${variant.name}/${n}`, body)
      );
    }
  }
  return golden;
}

async function optionBodies(): Promise<Golden> {
  const golden: Golden = new Map();
  for (const variant of OPTION_VARIANTS) {
    const bodies = await options(variant);
    bodies.forEach((body, n) => golden.set(`${variant.name}/${n}`, body));
  }
  return golden;
}

/** The 0.4 recordings kept in `recordings/`, by form id. */
export const RECORDINGS: Readonly<
  Record<
    string,
    (prompt: SystemPrompt, text: string) => {
      user(text: string): void;
      request(): Promise<unknown>;
      report(options: { countTokens: typeof countTokens }): unknown;
      save(): string;
    }
  >
> = {
  "anthropic-messages": (prompt, text) =>
    resumeAnthropicConversation(prompt, text),
  "openai-chat": (prompt, text) => resumeChatConversation(prompt, text),
  "openai-responses": (prompt, text) =>
    resumeResponsesConversation(prompt, text),
  "ai-sdk": (prompt, text) => resumeAiSdkConversation(prompt, text),
};

/** A 0.4 recording's text. */
export function recordingText(form: string): Promise<string> {
  return Deno.readTextFile(new URL(`recordings/${form}.jsonl`, GOLDEN_DIR));
}

/** The registry the kept recordings resume on. */
function recordingPrompt(): SystemPrompt {
  const prompt = new SystemPrompt({ persona: "You are a coding agent." });
  prompt.section({ name: "rules", order: 100, text: "Follow the rules." });
  return prompt;
}

/** Each kept recording resumed: its next request's body. */
async function resumedBodies(): Promise<Golden> {
  const golden: Golden = new Map();
  for (const [form, resume] of Object.entries(RECORDINGS)) {
    const prompt = recordingPrompt();
    const conv = resume(prompt, await recordingText(form));
    conv.user("And now?");
    golden.set(form, await conv.request());
    await prompt.dispose();
  }
  return golden;
}

/** Each kept recording's report and its save() after a resume. */
async function recordingRecords(): Promise<Golden> {
  const golden: Golden = new Map();
  for (const [form, resume] of Object.entries(RECORDINGS)) {
    const prompt = recordingPrompt();
    const conv = resume(prompt, await recordingText(form));
    golden.set(`${form}/report`, conv.report({ countTokens }));
    golden.set(`${form}/save`, conv.save());
    await prompt.dispose();
  }
  return golden;
}

/** The body groups: taken once, never again. */
export const BODY_GROUPS: Readonly<Record<string, () => Promise<Golden>>> = {
  "session-ways": sessionWayBodies,
  "session-forms": async () => (await sessionFormsOnce()).bodies,
  scenarios: scenarioBodies,
  options: optionBodies,
  random: randomSessions,
  adapters: adapterBodies,
  resumed: resumedBodies,
};

/** The record groups: the recordings' and reports' JSON. */
export const RECORD_GROUPS: Readonly<Record<string, () => Promise<Golden>>> = {
  "session-records": async () => (await sessionFormsOnce()).records,
  recordings: recordingRecords,
};

/** Where a group's digests are kept. */
export function digestFile(kind: "bodies" | "records", group: string): URL {
  return new URL(`${kind}/${group}.json`, GOLDEN_DIR);
}

/** A group's digests, by key. */
export function digestsOf(golden: Golden): Record<string, string> {
  const digests: Record<string, string> = {};
  for (const [key, value] of golden) digests[key] = digest(value);
  return digests;
}
