/**
 * SHA-256 for the adapters: the one implementation lives in
 * `src/shared/sha256.ts`. Internal: not a subpath export.
 *
 * @module
 */

export { digestHex, sha256Hex } from "../src/shared/sha256.ts";
