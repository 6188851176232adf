/**
 * An assembly as the request fields of Google Gemini's `generateContent`
 * (`@google/genai`): the config's `systemInstruction`, `tools` and
 * `toolConfig`.
 *
 * @module
 */

// Types only: the SDK's function-calling mode is a TypeScript enum, which
// no plain string satisfies; at run time this module needs no SDK.
import type { FunctionCallingConfigMode } from "@google/genai";
import type { AssembledSection, PromptAssembly } from "../../mod.ts";
import { quote, SystemPromptError } from "../../src/errors.ts";
import {
  type NameRule,
  objectSchema,
  type ReadTool,
  runtimeContextText,
  systemPrompt,
  withAssembly,
} from "../_kit/assembly_input.ts";
import {
  activeNamesOf,
  allowedToolNames,
  readOptions,
} from "../_kit/adapter_options.ts";

/**
 * Options of {@linkcode toGemini}.
 *
 * @example
 * ```ts
 * import type { GeminiOptions } from "@rxprompt/system-prompt/gemini";
 *
 * const options: GeminiOptions = { toolChoiceMode: "required" };
 * ```
 */
export interface GeminiOptions {
  /**
   * How the gates' allowed tools are sent when the assembly has
   * `activeTools`: `"auto"` (default) is the `VALIDATED` function-calling
   * mode (the model calls one of `allowedFunctionNames` or answers in
   * text; Gemini 3 and later), `"required"` is `ANY` (it must call one of
   * them). No active tool is `NONE`.
   */
  toolChoiceMode?: "auto" | "required";
}

/**
 * One text part of a Gemini `Content`.
 *
 * @example
 * ```ts
 * import type { GeminiTextPart } from "@rxprompt/system-prompt/gemini";
 *
 * const part: GeminiTextPart = { text: "You are a coding agent." };
 * ```
 */
export interface GeminiTextPart {
  /** The text. */
  text: string;
}

/**
 * One function declaration of a Gemini tool.
 *
 * @example
 * ```ts
 * import type { GeminiFunctionDeclaration } from "@rxprompt/system-prompt/gemini";
 *
 * const declaration: GeminiFunctionDeclaration = {
 *   name: "shell",
 *   description: "Run a command.",
 *   parametersJsonSchema: { type: "object", properties: {} },
 * };
 * ```
 */
export interface GeminiFunctionDeclaration {
  /** The tool's name. */
  name: string;
  /** What the tool does; absent when the tool's description is empty. */
  description?: string;
  /**
   * The tool's parameters as JSON Schema (the SDK's field for JSON Schema;
   * `parameters` takes Gemini's own `Schema` type), with `type: "object"`
   * added when absent.
   */
  parametersJsonSchema: { type: "object"; [key: string]: unknown };
}

/**
 * The Gemini `toolConfig` made from the assembly's `activeTools`.
 *
 * @example
 * ```ts
 * import type { FunctionCallingConfigMode } from "@google/genai";
 * import type { GeminiToolConfig } from "@rxprompt/system-prompt/gemini";
 *
 * const config: GeminiToolConfig = {
 *   functionCallingConfig: {
 *     mode: "VALIDATED" as FunctionCallingConfigMode,
 *     allowedFunctionNames: ["read_file"],
 *   },
 * };
 * ```
 */
export interface GeminiToolConfig {
  /** The mode and the allowed functions. */
  functionCallingConfig: {
    /** `VALIDATED`, `ANY` or `NONE` (the SDK's enum values). */
    mode: FunctionCallingConfigMode;
    /** The active tools, in the assembly's order; absent with `NONE`. */
    allowedFunctionNames?: string[];
  };
}

/**
 * The Gemini request fields of one assembly: what goes in
 * `generateContent`'s `config`, and the runtime context as content.
 *
 * @example
 * ```ts
 * import type { GeminiRequest } from "@rxprompt/system-prompt/gemini";
 *
 * const fields: GeminiRequest = {
 *   systemInstruction: { parts: [{ text: "You are a coding agent." }] },
 * };
 * ```
 */
export interface GeminiRequest {
  /** The system prompt as one text part; absent when it renders empty. */
  systemInstruction?: { parts: GeminiTextPart[] };
  /** One tool of function declarations, in the assembly's order; absent when there are none. */
  tools?: { functionDeclarations: GeminiFunctionDeclaration[] }[];
  /** The allowed tools, present only when the assembly has `activeTools`. */
  toolConfig?: GeminiToolConfig;
  /** The rendered runtime context as a user turn; absent when it renders empty. */
  runtimeContext?: { role: "user"; parts: GeminiTextPart[] };
}

/** Gemini's rule for a function name (`FunctionDeclaration.name`). */
const GEMINI_NAME: NameRule = {
  pattern: /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/,
  api: "Gemini API",
  says: 'a letter or "_", then at most 127 ASCII letters, digits, "_", ' +
    '".", ":" or "-"',
};

/**
 * Maps an assembly to the `generateContent` config fields of
 * `@google/genai` (`systemInstruction`, `tools`, `toolConfig`) and the
 * runtime context as a user turn (only when it renders non-empty; send it
 * with {@linkcode withGeminiRuntimeContext}, as turns must alternate). Gemini
 * caches implicitly: a request that starts with an earlier request's
 * prefix (its minimum is per model: 1,024 to 4,096 tokens) reads it, so
 * the prompt's stable-first order is all the cache needs; there are no
 * marks to place. The result type-checks against the SDK's
 * `GenerateContentConfig` without a cast; at run time it needs no SDK.
 *
 * `systemInstruction` is the rendered prompt in one text part. Each tool
 * is a function declaration whose `parametersJsonSchema` is its
 * parameters (a schema without `type` gets `type: "object"`, any other
 * `type` throws `INVALID_TOOL_SCHEMA`). When the assembly has
 * `activeTools`, every tool stays declared (the prefix stays cached) and
 * `toolConfig` allows the active ones (`toolChoiceMode`).
 *
 * Throws a {@linkcode SystemPromptError}: `INVALID_TOOL_NAME` for a name
 * Gemini rejects (`^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$`), `DUPLICATE_TOOL`,
 * `INVALID_TOOL_SCHEMA`, `INVALID_CONFIG` for a bad or unreadable option,
 * `INVALID_ASSEMBLY` for a non-assembly or one a getter or Proxy cannot
 * give (with the thrown value as `cause`).
 *
 * @param assembly what `assemble()` resolved to
 * @param options `toolChoiceMode`
 * @returns the request fields
 *
 * @example Send it with `@google/genai`
 * ```ts
 * import { toGemini, withGeminiRuntimeContext } from "@rxprompt/system-prompt/gemini";
 *
 * const { systemInstruction, tools, toolConfig, runtimeContext } = toGemini({
 *   sections: [{ name: "identity", order: -100, text: "You are a coding agent." }],
 *   tools: [
 *     { name: "read_file", description: "Read a file.", parameters: {} },
 *     { name: "shell", description: "Run a command.", parameters: {} },
 *   ],
 *   variables: {},
 *   runtimeContext: [{ name: "date", order: 0, text: "Today is Monday." }],
 *   activeTools: ["read_file"],
 * });
 * console.log(systemInstruction?.parts[0].text); // "You are a coding agent."
 * console.log(tools?.[0].functionDeclarations.length); // 2
 * console.log(toolConfig?.functionCallingConfig); // { mode: "VALIDATED", allowedFunctionNames: ["read_file"] }
 * const history = [{ role: "user", parts: [{ text: "Hi." }] }];
 * // Gemini refuses two user turns in a row: the context joins the last one.
 * const contents = withGeminiRuntimeContext(history, runtimeContext);
 * console.log(contents.length); // 1
 * // await ai.models.generateContent({ model, contents, config: { systemInstruction, tools, toolConfig } });
 * ```
 */
export function toGemini(
  assembly: PromptAssembly & { runtimeContext?: readonly AssembledSection[] },
  options?: GeminiOptions,
): GeminiRequest {
  const { toolChoiceMode } = readOptions(options, "toGemini", GEMINI_OPTIONS);
  const mode = modeOf(toolChoiceMode);
  return withAssembly(assembly, {
    adapter: "toGemini",
    rule: GEMINI_NAME,
  }, (input) => {
    const request: GeminiRequest = {};
    const prompt = systemPrompt(input);
    if (prompt !== "") {
      request.systemInstruction = { parts: [{ text: prompt }] };
    }
    if (input.tools.length > 0) {
      request.tools = [{
        functionDeclarations: input.tools.map(toDeclaration),
      }];
    }
    const activeNames = activeNamesOf(input);
    if (activeNames !== undefined) {
      const active = allowedToolNames(input.tools, activeNames);
      request.toolConfig = {
        functionCallingConfig: active.length === 0
          ? { mode: "NONE" as FunctionCallingConfigMode }
          : { mode, allowedFunctionNames: active },
      };
    }
    const context = runtimeContextText(input);
    if (context !== undefined) {
      request.runtimeContext = { role: "user", parts: [{ text: context }] };
    }
    return request;
  });
}

const GEMINI_OPTIONS = ["toolChoiceMode"] as const;

/** The function-calling mode `toolChoiceMode` asks for. */
function modeOf(toolChoiceMode: unknown): FunctionCallingConfigMode {
  if (toolChoiceMode === undefined || toolChoiceMode === "auto") {
    return "VALIDATED" as FunctionCallingConfigMode;
  }
  if (toolChoiceMode === "required") return "ANY" as FunctionCallingConfigMode;
  throw new SystemPromptError(
    "INVALID_CONFIG",
    `toolChoiceMode is ${quote(toolChoiceMode)}; it must be "auto" (the ` +
      `VALIDATED mode: call an allowed tool or answer) or "required" (ANY: ` +
      `call an allowed tool).`,
  );
}

/** A tool as a Gemini function declaration. */
export function toDeclaration(tool: ReadTool): GeminiFunctionDeclaration {
  const parametersJsonSchema = objectSchema(tool, {
    api: "Gemini API",
    field: "parametersJsonSchema",
  });
  return tool.description === ""
    ? { name: tool.name, parametersJsonSchema }
    : { name: tool.name, description: tool.description, parametersJsonSchema };
}
