import { SystemPrompt } from "../mod.ts";
import { goldenManifest, sharedPrefix, compareGoldenManifests } from "../src/cache/mod.ts";
{
const prompt = new SystemPrompt();
prompt.fork({ label: "files" }).tools(() => ({
  schemas: [{ name: "read_file", description: "Read a file.", parameters: { type: "object" } }],
}));
prompt.scope("coder").section({ name: "persona", order: -10, text: "You write code." });
prompt.scope("reviewer").section({ name: "persona", order: -10, text: "You review code." });
const shared = sharedPrefix(
  await prompt.explain({ scope: "coder" }),
  await prompt.explain({ scope: "reviewer" }),
  { provider: "anthropic", countTokens: (text) => text.length, minPrefixTokens: 0 },
);
console.log(shared.end, shared.divergence?.child?.entry);
console.log(shared);
await prompt.dispose();
}
{
const prompt = new SystemPrompt({ persona: "You are a coding agent." });
prompt.fork({ label: "rules" }).section({ name: "rules", order: 10, text: "Be brief." });
const manifest = goldenManifest(
  [{ scope: null, explanation: await prompt.explain() }],
  { countTokens: (text) => Math.ceil(text.length / 4) },
);
console.log(manifest.scopes[0].tiers.map((tier) => tier.entries.map((entry) => entry.registrar)));
await prompt.dispose();
}
const countTokens = (text: string) => Math.ceil(text.length / 4);
async function manifestWith(description: string) {
  const prompt = new SystemPrompt();
  prompt.fork({ label: "shell" }).tools(() => ({
    schemas: [{ name: "shell", description, parameters: { type: "object" } }],
  }));
  const manifest = goldenManifest([{ scope: null, explanation: await prompt.explain() }], { countTokens });
  await prompt.dispose();
  return manifest;
}
const [difference] = compareGoldenManifests(
  await manifestWith("Run a command."),
  await manifestWith("Run a command (2026-12-05)."),
);
console.log(difference.entry, difference.contributor);
