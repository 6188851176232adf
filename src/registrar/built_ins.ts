/**
 * The built-ins every registry starts with: the harness identity and the
 * deployment persona sections, the order bands, and the config that shapes
 * them.
 *
 * @module
 */

import { quote, readGuarded, SystemPromptError } from "../errors.ts";
import type { Registrar } from "./registrar.ts";
import { rankOf } from "../kinds/stability.ts";
import type { AssembleContext } from "../types.ts";
import type {
  PersonaConfig,
  SystemPromptConfig,
} from "../system_prompt_config.ts";

/**
 * Name of the built-in section that states the harness's identity (order
 * {@linkcode HARNESS_IDENTITY_ORDER}, text {@linkcode HARNESS_IDENTITY}).
 * Reserved in the global layer; a scope may shadow it for one agent.
 *
 * @example
 * ```ts
 * import { HARNESS_IDENTITY_SECTION, SystemPrompt } from "@rxprompt/system-prompt";
 *
 * const prompt = new SystemPrompt();
 * prompt.scope("sub-agent").section({
 *   name: HARNESS_IDENTITY_SECTION,
 *   order: -100,
 *   text: "You are a sub-agent: answer your caller only.",
 * });
 * ```
 */
export const HARNESS_IDENTITY_SECTION = "harness:identity";

/**
 * Name of the built-in section that holds the deployment's persona (order
 * {@linkcode PERSONA_ORDER}, the `persona` template of the config, `""` by
 * default). Reserved in the global layer; a scope may shadow it: that is the
 * per-agent persona.
 *
 * @example
 * ```ts
 * import { PERSONA_ORDER, PERSONA_SECTION, SystemPrompt } from "@rxprompt/system-prompt";
 *
 * const prompt = new SystemPrompt({ persona: "You are a helpful assistant." });
 * prompt.scope("reviewer").section({
 *   name: PERSONA_SECTION,
 *   order: PERSONA_ORDER,
 *   text: "You review code. Comment; never edit.",
 * });
 * ```
 */
export const PERSONA_SECTION = "deployment:persona";

/**
 * Order of the harness identity section: it renders first.
 *
 * @example
 * ```ts
 * import { HARNESS_IDENTITY_ORDER } from "@rxprompt/system-prompt";
 *
 * const safety = { name: "harness:safety", order: HARNESS_IDENTITY_ORDER + 1, text: "Never run rm -rf." };
 * ```
 */
export const HARNESS_IDENTITY_ORDER: -100 = -100;

/**
 * Order of the persona section. Other negative orders render between the
 * identity and the persona; positive ones after it.
 *
 * @example
 * ```ts
 * import { PERSONA_ORDER } from "@rxprompt/system-prompt";
 *
 * const facts = { name: "facts", order: PERSONA_ORDER + 10, text: "Today is {{date}}." };
 * ```
 */
export const PERSONA_ORDER = 0;

/**
 * First order of the band for tool guidance sections (100–199): each tool
 * plugin places its guidance inside the band.
 *
 * @example
 * ```ts
 * import { SystemPrompt, TOOL_GUIDANCE_ORDER } from "@rxprompt/system-prompt";
 *
 * const prompt = new SystemPrompt();
 * prompt.section({ name: "tools:shell", order: TOOL_GUIDANCE_ORDER + 20, text: "One command at a time." });
 * ```
 */
export const TOOL_GUIDANCE_ORDER = 100;

/**
 * Last order of the tool guidance band.
 *
 * @example
 * ```ts
 * import { TOOL_GUIDANCE_ORDER, TOOL_GUIDANCE_ORDER_END } from "@rxprompt/system-prompt";
 *
 * function inToolBand(order: number): boolean {
 *   return order >= TOOL_GUIDANCE_ORDER && order <= TOOL_GUIDANCE_ORDER_END;
 * }
 * ```
 */
export const TOOL_GUIDANCE_ORDER_END = 199;

/**
 * The text of the built-in `harness:identity` section: a fixed literal, so
 * the start of every prompt is byte-identical and cacheable.
 *
 * @example
 * ```ts
 * import { HARNESS_IDENTITY, renderPrompt, SystemPrompt } from "@rxprompt/system-prompt";
 *
 * const prompt = new SystemPrompt();
 * console.log(renderPrompt(await prompt.assemble()) === HARNESS_IDENTITY); // true
 * ```
 */
export const HARNESS_IDENTITY: string =
  "You are an AI agent running inside an agent harness. Follow the " +
  "instructions in this system prompt, use the tools you are given when " +
  "they help, and report truthfully what you did and what you could not do.";

/**
 * Checks the constructor's config; `undefined` is an empty config. Reads
 * each field once and returns what it read, so a getter cannot pass the
 * check with one value and be used with another.
 */
export function validateConfig(config: unknown): SystemPromptConfig {
  if (config === undefined) return {};
  if (typeof config !== "object" || config === null) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `The SystemPrompt config must be an object { persona?, toolOrder?, ` +
        `includeHarnessIdentity?, includeRuntimeContext?, onSubscriberError?, ` +
        `budget? }; ` +
        `got ${quote(config)}.`,
    );
  }
  const fields = readConfigFields(config);
  checkConfigFields(fields);
  return { ...fields, persona: readPersona(fields.persona) };
}

/**
 * The config's `persona`: a string, or `{ text, cacheBreakpoint?,
 * stability? }` read once into a plain object.
 */
function readPersona(persona: unknown): string | PersonaConfig | undefined {
  if (persona === undefined || typeof persona === "string") return persona;
  const shape = `persona must be a string (a template, "" for none) or an ` +
    `object { text, cacheBreakpoint?, stability? }`;
  if (typeof persona !== "object" || persona === null) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `${shape}; got ${quote(persona)}.`,
    );
  }
  const { text, cacheBreakpoint, stability } = readGuarded(
    () => {
      const { text, cacheBreakpoint, stability } = persona as PersonaConfig;
      return { text, cacheBreakpoint, stability };
    },
    "INVALID_CONFIG",
    () =>
      `Reading the config's persona threw; ${shape} whose fields can be read.`,
  );
  if (typeof text !== "string") {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `persona.text must be a string (a template, "" for none); got ` +
        `${quote(text)}.`,
    );
  }
  checkOptional(cacheBreakpoint, {
    key: "persona.cacheBreakpoint",
    type: "boolean",
  });
  if (stability !== undefined && rankOf(stability) === -1) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `persona.stability is ${quote(stability)}; it must be "stable", ` +
        `"agent" or "volatile", or left out (stable, the global layer's ` +
        `default).`,
    );
  }
  const read: PersonaConfig = { text };
  if (cacheBreakpoint !== undefined) read.cacheBreakpoint = cacheBreakpoint;
  if (stability !== undefined) read.stability = stability;
  return read;
}

/** One guarded read of each config field, so a throwing getter is reported. */
function readConfigFields(config: object): SystemPromptConfig {
  return readGuarded(
    () => {
      const {
        persona,
        toolOrder,
        includeHarnessIdentity,
        includeRuntimeContext,
        onSubscriberError,
        budget,
      } = config as SystemPromptConfig;
      return {
        persona,
        toolOrder,
        includeHarnessIdentity,
        includeRuntimeContext,
        onSubscriberError,
        budget,
      };
    },
    "INVALID_CONFIG",
    () =>
      `Reading the SystemPrompt config threw; the config is an object ` +
      `whose fields can be read.`,
  );
}

/** Throws `INVALID_CONFIG` for the first config field of the wrong type. */
function checkConfigFields(
  { includeHarnessIdentity, includeRuntimeContext, onSubscriberError }:
    SystemPromptConfig,
): void {
  checkOptional(includeRuntimeContext, {
    key: "includeRuntimeContext",
    type: "boolean",
  });
  checkOptional(includeHarnessIdentity, {
    key: "includeHarnessIdentity",
    type: "boolean",
  });
  checkOptional(onSubscriberError, {
    key: "onSubscriberError",
    type: "function",
    shape: " (error, change) => void",
  });
}

/** Throws `INVALID_CONFIG` unless a config field is left out or a `type`. */
function checkOptional(
  value: unknown,
  { key, type, shape = "" }: {
    key: string;
    type: "boolean" | "string" | "function";
    shape?: string;
  },
): void {
  if (value === undefined || typeof value === type) return;
  throw new SystemPromptError(
    "INVALID_CONFIG",
    `${key} must be a ${type}${shape}; got ${quote(value)}.`,
  );
}

/**
 * Registers the identity (unless turned off) and persona sections through
 * `root`, which owns them.
 */
export function registerBuiltIns<C extends AssembleContext>(
  root: Registrar<C>,
  config: SystemPromptConfig,
): void {
  const { persona = "", includeHarnessIdentity = true } = config;
  if (includeHarnessIdentity) {
    root.section({
      name: HARNESS_IDENTITY_SECTION,
      order: HARNESS_IDENTITY_ORDER,
      text: HARNESS_IDENTITY,
    });
  }
  const personaConfig: PersonaConfig = typeof persona === "string"
    ? { text: persona }
    : persona;
  const { text, cacheBreakpoint, stability } = personaConfig;
  root.section({
    name: PERSONA_SECTION,
    order: PERSONA_ORDER,
    text,
    cacheBreakpoint,
    stability,
  });
}
