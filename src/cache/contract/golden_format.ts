/**
 * The golden manifest's file format (SPEC 9.5, 9.8): JSON with a format
 * name, a version and a checksum of its own content, one line per entry so
 * a change reads as a one-line diff in review. Pure.
 *
 * @module
 */

import { quote, SystemPromptError } from "../../errors.ts";
import { sha256Hex } from "../../shared/sha256.ts";
import {
  checkGoldenScopes,
  invalid,
  keys,
  object,
  readGoldenScopes,
} from "./golden_read.ts";
import {
  GOLDEN_MANIFEST_FORMAT,
  GOLDEN_MANIFEST_VERSION,
  type GoldenManifest,
  type GoldenManifestEntry,
} from "./golden_types.ts";

const REGENERATE = "regenerate it with rxprompt check CONFIG --golden FILE " +
  "--update";

/**
 * A manifest's canonical form: every object with its keys in the format's
 * order, and nothing else. The checksum is SHA-256 over its compact JSON.
 */
function canonical(manifest: GoldenManifest): GoldenManifest {
  return {
    format: manifest.format,
    version: manifest.version,
    scopes: manifest.scopes.map((scope) => ({
      scope: scope.scope,
      tokens: scope.tokens,
      tiers: scope.tiers.map((tier) => ({
        part: tier.part,
        tier: tier.tier,
        tokens: tier.tokens,
        entries: tier.entries.map(canonicalEntry),
      })),
      ...(scope.deferred === undefined
        ? {}
        : { deferred: scope.deferred.map(canonicalEntry) }),
    })),
  };
}

function canonicalEntry(entry: GoldenManifestEntry): GoldenManifestEntry {
  return {
    registrar: entry.registrar,
    name: entry.name,
    sha256: entry.sha256,
    tokens: entry.tokens,
  };
}

function checksumOf(manifest: GoldenManifest): string {
  return `sha256:${sha256Hex(JSON.stringify(canonical(manifest)))}`;
}

/**
 * Writes a manifest as the text of its file: JSON with `format`, `version`,
 * `checksum` (`sha256:` and 64 hex digits over the canonical content) and
 * `scopes`, two-space indented, each entry on one line, ending with a
 * newline. The same manifest always gives the same bytes.
 *
 * @param manifest what {@linkcode goldenManifest} returned
 * @returns the file's text
 *
 * @example
 * ```ts
 * import { formatGoldenManifest } from "@rxprompt/system-prompt/cache";
 *
 * const text = formatGoldenManifest({
 *   format: "rxprompt-golden-manifest",
 *   version: 1,
 *   scopes: [{ scope: null, tokens: 0, tiers: [] }],
 * });
 * console.log(text.split("\n")[1]); // '  "format": "rxprompt-golden-manifest",'
 * ```
 */
export function formatGoldenManifest(manifest: GoldenManifest): string {
  const form = canonical(manifest);
  const json = (value: unknown) => JSON.stringify(value);
  const lines = [
    "{",
    `  "format": ${json(form.format)},`,
    `  "version": ${json(form.version)},`,
    `  "checksum": ${json(checksumOf(form))},`,
  ];
  if (form.scopes.length === 0) {
    lines.push(`  "scopes": []`);
  } else {
    lines.push(`  "scopes": [`);
    form.scopes.forEach((scope, index) => {
      lines.push(
        "    {",
        `      "scope": ${json(scope.scope)},`,
        `      "tokens": ${json(scope.tokens)},`,
      );
      const deferred = scope.deferred;
      const more = deferred === undefined ? "" : ",";
      if (scope.tiers.length === 0) {
        lines.push(`      "tiers": []${more}`);
      } else {
        lines.push(`      "tiers": [`);
        scope.tiers.forEach((tier, at) => {
          lines.push(
            "        {",
            `          "part": ${json(tier.part)},`,
            `          "tier": ${json(tier.tier)},`,
            `          "tokens": ${json(tier.tokens)},`,
            `          "entries": [`,
            ...tier.entries.map((entry, n) =>
              `            ${json(entry)}${
                n === tier.entries.length - 1 ? "" : ","
              }`
            ),
            "          ]",
            `        }${at === scope.tiers.length - 1 ? "" : ","}`,
          );
        });
        lines.push(`      ]${more}`);
      }
      if (deferred !== undefined) {
        lines.push(
          `      "deferred": [`,
          ...deferred.map((entry, n) =>
            `        ${json(entry)}${n === deferred.length - 1 ? "" : ","}`
          ),
          "      ]",
        );
      }
      lines.push(`    }${index === form.scopes.length - 1 ? "" : ","}`);
    });
    lines.push("  ]");
  }
  lines.push("}", "");
  return lines.join("\n");
}

/**
 * Reads a manifest file's text, checking it whole: JSON, the format name
 * and version, every field's shape, and the checksum (so a manifest edited
 * by hand, or cut short mid-write, is found rather than trusted).
 *
 * @param text the file's content
 * @returns the manifest
 * @throws {SystemPromptError} `INVALID_MANIFEST` (not JSON, cut short, or a
 * field of the wrong shape, named by its path), `UNSUPPORTED_MANIFEST_VERSION`
 * (another format or version), `MANIFEST_CHECKSUM_MISMATCH` (the content
 * does not match its checksum)
 *
 * @example
 * ```ts
 * import { formatGoldenManifest, parseGoldenManifest } from "@rxprompt/system-prompt/cache";
 *
 * const text = formatGoldenManifest({ format: "rxprompt-golden-manifest", version: 1, scopes: [] });
 * console.log(parseGoldenManifest(text).scopes); // []
 * try {
 *   parseGoldenManifest(text.replace("[]", '[{"scope":null,"tokens":0,"tiers":[]}]'));
 * } catch (error) {
 *   console.log((error as { code: string }).code); // "MANIFEST_CHECKSUM_MISMATCH"
 * }
 * ```
 */
export function parseGoldenManifest(text: string): GoldenManifest {
  if (typeof text !== "string") {
    throw invalid(`the manifest must be text; got ${quote(text)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : "";
    throw invalid(
      `the golden manifest is not valid JSON (${reason}): cut short or ` +
        `broken by an edit; ${REGENERATE}`,
    );
  }
  const root = object(value, "the manifest");
  if (root.format !== GOLDEN_MANIFEST_FORMAT) {
    if (root.format === undefined) {
      throw invalid(
        `the file has no "format": it is not an rxprompt golden manifest`,
      );
    }
    throw new SystemPromptError(
      "UNSUPPORTED_MANIFEST_VERSION",
      `the file's format is ${
        quote(root.format)
      }; this rxprompt reads "${GOLDEN_MANIFEST_FORMAT}" version ` +
        `${GOLDEN_MANIFEST_VERSION}`,
    );
  }
  const version = root.version;
  if (version !== 1 && version !== GOLDEN_MANIFEST_VERSION) {
    throw new SystemPromptError(
      "UNSUPPORTED_MANIFEST_VERSION",
      `the golden manifest has format version ${
        quote(version)
      }; this rxprompt reads versions 1 to ${GOLDEN_MANIFEST_VERSION} (` +
        `${REGENERATE}, or use the rxprompt that wrote it)`,
    );
  }
  keys(root, ["format", "version", "checksum", "scopes"], "the manifest");
  const checksum = root.checksum;
  if (typeof checksum !== "string" || !/^sha256:[0-9a-f]{64}$/.test(checksum)) {
    throw invalid(
      `"checksum" is ${quote(checksum)}; "sha256:" and 64 hex digits`,
    );
  }
  const manifest: GoldenManifest = {
    format: GOLDEN_MANIFEST_FORMAT,
    version,
    // Version 1 has no deferred tools: the key is unknown there.
    scopes: readGoldenScopes(root.scopes, { deferred: version !== 1 }),
  };
  if (checksumOf(manifest) !== checksum) {
    throw new SystemPromptError(
      "MANIFEST_CHECKSUM_MISMATCH",
      `the golden manifest's content does not match its checksum: it was ` +
        `edited after it was written; ${REGENERATE} and review the diff`,
    );
  }
  // Its checksum holds, yet it is not what goldenManifest writes: written
  // by another tool, or edited and its checksum recomputed.
  try {
    checkGoldenScopes(manifest.scopes);
    if (
      version !== 1 &&
      manifest.scopes.every((scope) => scope.deferred === undefined)
    ) {
      throw invalid(
        `the manifest is version ${version}, which goldenManifest writes ` +
          `only for views with deferred tools, and it has none`,
      );
    }
  } catch (error) {
    throw new SystemPromptError(
      "INVALID_MANIFEST",
      `${(error as SystemPromptError).message}: the file is not what ` +
        `goldenManifest writes; ${REGENERATE}`,
    );
  }
  return manifest;
}
