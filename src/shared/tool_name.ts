/**
 * The rule most model APIs apply to a tool's name, and how it reads in a
 * message: the adapters refuse a name that breaks it (`INVALID_TOOL_SCHEMA`)
 * and the cache lint reports one (`INVALID_TOOL_NAME`).
 *
 * @module
 */

/** The rule most model APIs apply to a tool's name. */
export const WIRE_TOOL_NAME: RegExp = /^[a-zA-Z0-9_-]{1,64}$/;

/** {@linkcode WIRE_TOOL_NAME} in words. */
export const WIRE_TOOL_NAME_SAYS = '1 to 64 ASCII letters, digits, "_" or "-"';
