/**
 * The one error class the module raises on purpose, and its stable codes.
 *
 * @module
 */

/**
 * Every stable code a {@linkcode SystemPromptError} can carry. Match on the
 * code, never on the message: messages may be reworded, codes may not.
 *
 * @example Branch on a code
 * ```ts
 * import { renderPrompt, SystemPromptError } from "@rxprompt/system-prompt";
 *
 * try {
 *   renderPrompt({
 *     sections: [{ name: "a", order: 0, text: "{{missing}}" }],
 *     tools: [],
 *     variables: {},
 *   });
 * } catch (error) {
 *   if (error instanceof SystemPromptError && error.code === "UNKNOWN_VARIABLE") {
 *     console.log("a section references an unregistered variable");
 *   }
 * }
 * ```
 */
export type SystemPromptErrorCode =
  | "DUPLICATE_SECTION"
  | "DUPLICATE_VARIABLE"
  | "DUPLICATE_TOOL"
  | "INVALID_VARIABLE_NAME"
  | "INVALID_SECTION"
  | "INVALID_PROVIDER"
  | "INVALID_EFFECT"
  | "INVALID_CONTEXT"
  | "INVALID_LISTENER_RESULT"
  | "REENTRANT_ASSEMBLY"
  | "INVALID_CONFIG"
  | "INVALID_TOOL_ORDER"
  | "UNKNOWN_TOOL_IN_ORDER"
  | "RESERVED_TOOL_NAME"
  | "UNKNOWN_TOOL"
  | "INVALID_TOOL_SCHEMA"
  | "INVALID_TOOL_NAME"
  | "UNKNOWN_VARIABLE"
  | "VARIABLE_WITHOUT_VALUE"
  | "INVALID_VARIABLE_VALUE"
  | "MALFORMED_REFERENCE"
  | "PROVIDER_FAILED"
  | "DISPOSED"
  | "INVALID_SCOPE_KEY"
  | "INVALID_ASSEMBLY"
  | "SCOPE_ALREADY_BOUND"
  | "SCOPE_CYCLE"
  | "MULTIPLE_COMPLETE_SECTIONS"
  | "DUPLICATE_RUNTIME_CONTEXT"
  | "UNKNOWN_TOOL_IN_GATE"
  | "BUDGET_EXCEEDED"
  | "INVALID_MANIFEST"
  | "MANIFEST_CHECKSUM_MISMATCH"
  | "UNSUPPORTED_MANIFEST_VERSION"
  | "MISSING_PEER_DEPENDENCY"
  | "CONVERSATION_BUSY"
  | "NOTHING_TO_SEND"
  | "NOTHING_PENDING"
  | "TOOL_RESULTS_MISSING"
  | "UNKNOWN_TOOL_CALL"
  | "DUPLICATE_TOOL_RESULT"
  | "INVALID_CONVERSATION_INPUT"
  | "INVALID_RESPONSE"
  | "RESPONSE_OF_OTHER_PROVIDER"
  | "COMPACTION_UNSUPPORTED"
  | "COMPACTION_OPEN_CALLS"
  | "COMPACTION_PENDING"
  | "RECORDING_UNPARSABLE"
  | "RECORDING_VERSION"
  | "RECORDING_OTHER_PROVIDER"
  | "RECORDING_DISCONTINUOUS"
  | "APPEND_ONLY_VIOLATION"
  | "DEFERRED_TOOLS_CHANGED";

/**
 * Options of the {@linkcode SystemPromptError} constructor.
 *
 * @example
 * ```ts
 * import { SystemPromptError, type SystemPromptErrorOptions } from "@rxprompt/system-prompt";
 *
 * const options: SystemPromptErrorOptions = { cause: new Error("disk full") };
 * const error = new SystemPromptError("PROVIDER_FAILED", "the cwd provider failed", options);
 * ```
 */
export interface SystemPromptErrorOptions {
  /** The underlying error, for example what a provider threw. */
  cause?: unknown;
}

/**
 * An error the module raises on purpose. `code` is stable; `message` says
 * what is wrong, where (section, variable, tool or scope) and what would be
 * valid; `cause` carries the original error when one exists.
 *
 * @example
 * ```ts
 * import { SystemPromptError } from "@rxprompt/system-prompt";
 *
 * const error = new SystemPromptError("DISPOSED", "the registry is disposed");
 * console.log(error.code); // "DISPOSED"
 * console.log(error.name); // "SystemPromptError"
 * ```
 */
export class SystemPromptError extends Error {
  /** The stable, machine-readable reason. */
  readonly code: SystemPromptErrorCode;

  /**
   * Creates an error with a stable code.
   *
   * @param code the stable reason
   * @param message what is wrong, where, and what would be valid
   * @param options the original error as `cause`, when there is one
   */
  constructor(
    code: SystemPromptErrorCode,
    message: string,
    options?: SystemPromptErrorOptions,
  ) {
    super(message, options);
    this.name = "SystemPromptError";
    this.code = code;
  }
}

/**
 * Quotes a user-supplied name for an error message, unambiguously. Never
 * throws: an object or function is described without reading its
 * properties beyond what a revoked or throwing Proxy allows.
 */
export function quote(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "function") {
    return `function ${functionName(value) ?? "(anonymous)"}`;
  }
  if (typeof value === "object" && value !== null) {
    return safely(() => Array.isArray(value)) === true
      ? "an array"
      : "an object";
  }
  return String(value);
}

/**
 * The `name` of user code (a provider, gate or listener) or of an entry, for
 * a message, or `undefined` when it has no non-empty string name. Never
 * throws: a `name` getter or Proxy trap that throws, or a revoked Proxy, has
 * no name.
 */
export function functionName(value: unknown): string | undefined {
  const name = safely(() => (value as { name?: unknown }).name);
  return typeof name === "string" && name !== "" ? name : undefined;
}

/**
 * Names a layer for an error message: the global layer or one scope. Never
 * throws, and reads an object key's class name only here, when a message
 * needs it.
 */
export function describeScope(scope: unknown): string {
  if (scope === undefined) return "the global layer";
  if (typeof scope === "object" || typeof scope === "function") {
    const name = safely(() =>
      (scope as { constructor?: { name?: unknown } }).constructor?.name
    );
    const kind = typeof name === "string" && name !== "" ? name : "object";
    return `scope ${kind} (an object key)`;
  }
  return `scope ${quote(scope)}`;
}

/**
 * `read()`: reads fields of a user-supplied object. What a getter or a Proxy
 * throws becomes a `SystemPromptError` of `code` with `message()` and the
 * thrown value as `cause`; a `SystemPromptError` passes unchanged.
 */
export function readGuarded<T>(
  read: () => T,
  code: SystemPromptErrorCode,
  message: () => string,
): T {
  try {
    return read();
  } catch (error) {
    if (isSystemPromptError(error)) throw error;
    throw new SystemPromptError(code, message(), { cause: error });
  }
}

/** Whether `value` is a {@linkcode SystemPromptError}; never throws. */
export function isSystemPromptError(
  value: unknown,
): value is SystemPromptError {
  try {
    return value instanceof SystemPromptError;
  } catch {
    return false;
  }
}

/** `read()`, or `undefined` when it throws (a revoked or hostile Proxy). */
function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
