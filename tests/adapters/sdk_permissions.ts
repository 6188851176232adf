/**
 * Deno-only (imported by the `*_sdk_test.ts` files): whether this run may
 * start the loopback server and load the SDKs. `false` when it may, else the
 * reason to skip, naming the flags (`deno task test` passes them).
 */

const NEEDED: Deno.PermissionDescriptor[] = [
  { name: "net", host: "127.0.0.1" },
  { name: "sys", kind: "hostname" },
  { name: "env" },
];

function granted(descriptor: Deno.PermissionDescriptor): boolean {
  return Deno.permissions.querySync(descriptor).state === "granted";
}

/** `false`, or why the SDK round trips cannot run here. */
export const SDK_PERMISSIONS: false | string = NEEDED.every(granted)
  ? false
  : "the SDK round trips need --allow-net=127.0.0.1 --allow-sys=hostname " +
    "--allow-env (run `deno task test`)";

/**
 * `false`, or why the AWS SDK round trips cannot run here: the AWS SDK
 * also reads the OS release (for its user agent).
 */
export const AWS_SDK_PERMISSIONS: false | string = SDK_PERMISSIONS !== false
  ? SDK_PERMISSIONS
  : granted({ name: "sys", kind: "osRelease" })
  ? false
  : "the AWS SDK round trips need --allow-sys=hostname,osRelease as well " +
    "(run `deno task test:slow`)";
