/**
 * The Amazon Bedrock Converse form (issue 45): its usage, its cache rules
 * and its OpenTelemetry name. Its conversation is not built yet: this row
 * gets the conversation's members (adapters/anthropic/form.ts shows them)
 * when it is ("Adding a provider form", ARCHITECTURE.md).
 *
 * @module
 */

import type { ProviderForm } from "../../src/conversation/form.ts";
import { readUsageWith } from "../../src/cache/report/usage_reader.ts";
import { BEDROCK_RULES } from "./rules.ts";
import { bedrockUsage } from "./usage.ts";

/** The Bedrock Converse form. */
export const CONVERSE_FORM: ProviderForm = {
  id: "bedrock-converse",
  formerNames: ["bedrock"],
  title: "an Amazon Bedrock Converse",
  otelProvider: "aws.bedrock",
  cache: {
    rules: [BEDROCK_RULES],
    rulesOf: () => BEDROCK_RULES,
    liveBodyIsWire: true,
  },
  readUsage: (response) =>
    readUsageWith(
      "bedrock-converse",
      response,
      (read, reader) => bedrockUsage(read, reader, "bedrock-converse"),
    ),
};
