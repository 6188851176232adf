/**
 * The Gemini `generateContent` form (issue 45): its usage, its cache rules
 * and its OpenTelemetry name. Its conversation is not built yet: this row
 * gets the conversation's members (adapters/anthropic/form.ts shows them)
 * when it is ("Adding a provider form", ARCHITECTURE.md).
 *
 * @module
 */

import type { ProviderForm } from "../../src/conversation/form.ts";
import { readUsageWith } from "../../src/cache/report/usage_reader.ts";
import { GEMINI_RULES } from "./rules.ts";
import { geminiUsage } from "./usage.ts";

/** The Gemini form. */
export const GEMINI_FORM: ProviderForm = {
  id: "gemini",
  formerNames: [],
  title: "a Gemini",
  otelProvider: "gcp.gemini",
  cache: {
    rules: [GEMINI_RULES],
    rulesOf: () => GEMINI_RULES,
    liveBodyIsWire: true,
  },
  readUsage: (response) =>
    readUsageWith(
      "gemini",
      response,
      (read, reader) => geminiUsage(read, reader, "gemini"),
    ),
};
