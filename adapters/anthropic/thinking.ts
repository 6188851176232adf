/**
 * The `thinking` option of the Anthropic conversation: the API's thinking
 * configuration (`@anthropic-ai/sdk`'s `BetaThinkingConfigParam`),
 * checked, sent as the body's top-level `thinking` on every request.
 *
 * @module
 */

import { SystemPromptError } from "../../mod.ts";
import { quote } from "../../src/errors.ts";
import { isObject } from "../_kit/form_options.ts";
import type {
  AnthropicConversationOptions,
  AnthropicThinking,
} from "./conversation_types.ts";

/** The beta of `block_binding` (`thinking-binding-controls`). */
const BLOCK_BINDING_BETA = "thinking-binding-controls-2026-08-01";

/** The API's smallest thinking budget. */
const MIN_BUDGET = 1024;

/** Each type's fields besides `type`. */
const FIELDS: Readonly<Record<string, readonly string[]>> = {
  enabled: ["budget_tokens", "block_binding", "display"],
  adaptive: ["block_binding", "display"],
  disabled: [],
  between_tools: [],
};

const DISPLAYS = ["summarized", "omitted", "updates"];
const MISMATCH = ["error", "drop_block"];

const SHAPES =
  `{ type: "enabled", budget_tokens, block_binding?, display? }, ` +
  `{ type: "adaptive", block_binding?, display? }, { type: "disabled" } or ` +
  `{ type: "between_tools" }`;

/** `thinking`, read: the body's field and the betas it needs. */
export interface Thinking {
  readonly sent: AnthropicThinking;
  readonly betas: readonly string[];
}

/**
 * The `thinking` option, checked against the API's shapes and the
 * options' `max_tokens` (read first: a budget of at least 1024, below it),
 * copied.
 */
export function readThinking(
  options: AnthropicConversationOptions,
  form: string,
): Thinking | undefined {
  const value: unknown = options.thinking;
  if (value === undefined) return undefined;
  const maxTokens = options.max_tokens;
  const bad = (what: string, valid: string) =>
    new SystemPromptError(
      "INVALID_CONFIG",
      `${form}'s thinking${what}; ${valid}.`,
    );
  if (!isObject(value)) {
    throw bad(` is ${quote(value)}`, `it must be ${SHAPES}`);
  }
  const fields = typeof value.type === "string"
    ? FIELDS[value.type]
    : undefined;
  if (fields === undefined || !Object.hasOwn(FIELDS, value.type as string)) {
    throw bad(`.type is ${quote(value.type)}`, `it must be ${SHAPES}`);
  }
  for (const key of Object.keys(value)) {
    if (key !== "type" && !fields.includes(key)) {
      throw bad(
        `.${key} is not a field of type ${quote(value.type)}`,
        `it takes ${fields.length === 0 ? "no other" : fields.join(", ")}`,
      );
    }
  }
  const budget = value.budget_tokens;
  if (
    value.type === "enabled" &&
    !(typeof budget === "number" && Number.isInteger(budget) &&
      budget >= MIN_BUDGET && budget < maxTokens)
  ) {
    throw bad(
      `.budget_tokens is ${quote(budget)}`,
      `it must be an integer of at least ${MIN_BUDGET} and below ` +
        `max_tokens (${maxTokens})`,
    );
  }
  if (
    value.display !== undefined && value.display !== null &&
    !DISPLAYS.includes(value.display as string)
  ) {
    throw bad(
      `.display is ${quote(value.display)}`,
      `it must be ${DISPLAYS.map((display) => `"${display}"`).join(", ")} ` +
        `or null`,
    );
  }
  const binding = value.block_binding;
  if (binding !== undefined && binding !== null) {
    const behavior = isObject(binding)
      ? binding.prefix_mismatch_behavior
      : undefined;
    if (
      !isObject(binding) ||
      Object.keys(binding).some((key) => key !== "prefix_mismatch_behavior") ||
      (behavior !== undefined && behavior !== null &&
        !MISMATCH.includes(behavior as string))
    ) {
      throw bad(
        `.block_binding is ${quote(binding)}` +
          (behavior === undefined
            ? ""
            : ` (prefix_mismatch_behavior is ${quote(behavior)})`),
        `it must be { prefix_mismatch_behavior?: "error" | "drop_block" | ` +
          `null } or null`,
      );
    }
  }
  // A copy: the bytes of every request, whatever the caller changes later.
  const sent = JSON.parse(JSON.stringify(value)) as AnthropicThinking;
  return {
    sent,
    // null asks every default, as an absent block_binding does.
    betas: isObject(binding) ? [BLOCK_BINDING_BETA] : [],
  };
}
