/**
 * `@opentelemetry/api`, an optional peer dependency (SPEC 9.4), imported
 * dynamically when `./otel` is imported: without it, importing `./otel`
 * fails with a `SystemPromptError` that says what to install, and no other
 * entry point loads it.
 *
 * @module
 */

import { SystemPromptError } from "../../src/errors.ts";

/** What `./otel` uses of `@opentelemetry/api`. */
export interface OtelApi {
  trace: {
    getTracer(name: string, version?: string): unknown;
  };
  SpanKind: { CLIENT: number };
  SpanStatusCode: { ERROR: number };
}

/** The package's name, for messages. */
export const OTEL_API = "@opentelemetry/api";

let loaded: Promise<OtelApi> | undefined;

/**
 * The API, imported once. `load` replaces the import (tests use it to see
 * the package missing).
 *
 * @throws {SystemPromptError} `MISSING_PEER_DEPENDENCY` when the import
 * fails, with the import's error as `cause`
 */
export function loadOtelApi(
  load: () => Promise<unknown> = () => import("@opentelemetry/api"),
): Promise<OtelApi> {
  if (loaded !== undefined) return loaded;
  const attempt = Promise.resolve().then(load).then(
    (module) => module as OtelApi,
    (error: unknown) => {
      // A failed import is not cached: installing the package and trying
      // again works without a restart where the runtime allows it.
      loaded = undefined;
      throw new SystemPromptError(
        "MISSING_PEER_DEPENDENCY",
        `@rxprompt/system-prompt/otel records spans through ${OTEL_API}, ` +
          `an optional peer dependency that could not be imported (${
            error instanceof Error ? error.message : String(error)
          }); install it (npm install ${OTEL_API}) and register a tracer ` +
          `provider, or pass { tracer }`,
        { cause: error },
      );
    },
  );
  loaded = attempt;
  return attempt;
}

/** Forgets the loaded API (tests only). */
export function resetOtelApi(): void {
  loaded = undefined;
}
