/**
 * Live values (SPEC 7.8): `assemble` with 12 Observable-valued variables
 * against the same 12 variables as function providers (one group, so the
 * ratio comes from one run), and the cost of one value pushed into a
 * watched registry.
 */
import { BehaviorSubject } from "rxjs";
import { SystemPrompt } from "../../mod.ts";

const NAMES = Array.from({ length: 12 }, (_, index) => `v${index}`);
const PERSONA = NAMES.map((name) => `{{${name}}}`).join(" ");

function registry(): SystemPrompt {
  return new SystemPrompt({ persona: PERSONA });
}

const functions = registry();
for (const [index, name] of NAMES.entries()) {
  functions.variable(name, () => `value-${index}`);
}

const live = registry();
const subjects = NAMES.map((_, index) => new BehaviorSubject(`value-${index}`));
for (const [index, name] of NAMES.entries()) {
  live.variable(name, subjects[index]);
}

const watched = registry();
const cwd = new BehaviorSubject("/0");
watched.variable("cwd", cwd);
const subscription = watched.watch().subscribe();
let counter = 0;

Deno.bench(
  "assemble, 12 function variables",
  { group: "12 variables", baseline: true },
  async () => {
    await functions.assemble();
  },
);
Deno.bench(
  "assemble, 12 Observable variables",
  { group: "12 variables" },
  async () => {
    await live.assemble();
  },
);
Deno.bench("one value into a watched live variable", () => {
  cwd.next(`/${++counter}`);
});

globalThis.addEventListener("unload", () => subscription.unsubscribe());
