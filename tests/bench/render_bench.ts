/**
 * Benchmarks of `renderPrompt` (run with `deno bench tests/bench/`).
 *
 * - "7 KB prompt": a realistic prompt (57 sections, 200 references over 12
 *   variables) rendered by renderPrompt (baseline), against the plain join
 *   of the same pre-rendered sections (the lower bound), Mustache with a
 *   pre-parsed template and Handlebars with a precompiled strict template.
 * - "adversarial": megabytes of `{{` (or of escaped `\\{{`), which must
 *   stay linear.
 */

import Handlebars from "handlebars";
import Mustache from "mustache";
import {
  type AssembledSection,
  type PromptAssembly,
  renderPrompt,
  SystemPromptError,
} from "../../mod.ts";

const VARIABLES: Record<string, string> = {
  model: "example-model-2025-01",
  cwd: "/home/agent/workspace/project",
  date: "2025-06-01",
  os: "linux",
  shell: "bash",
  user: "alice",
  agent_name: "Builder",
  project: "rxprompt",
  branch: "main",
  tool_count: "14",
  max_tokens: "8192",
  locale: "en-US",
};
const NAMES = Object.keys(VARIABLES);

const PHRASES = [
  "You are {{agent_name}}, running on {{model}} for {{user}}.",
  "Work inside {{cwd}} on branch {{branch}} of {{project}}.",
  "The shell is {{shell}} on {{os}}; today is {{date}}.",
  "Keep answers under {{max_tokens}} tokens and write in {{locale}}.",
  "You have {{tool_count}} tools; prefer the one that fits best.",
  "Never leave {{cwd}} without asking {{user}} first.",
  "When unsure, say so plainly and propose the next step.",
];

/** 57 sections, 200 references, about 7 KB of template text. */
function realisticSections(): AssembledSection[] {
  const sections: AssembledSection[] = [];
  let references = 0;
  for (let index = 0; index < 57; index++) {
    const wanted = index < 29 ? 4 : 3;
    const lines = [`## Guidance ${index}`];
    let count = 0;
    for (let k = 0; count < wanted; k++) {
      const phrase = PHRASES[(index + k) % PHRASES.length];
      const refs = phrase.match(/\{\{/g)?.length ?? 0;
      if (count + refs > wanted) {
        // Pad with a single reference to hit the exact count.
        lines.push(`Remember: {{${NAMES[(index + k) % NAMES.length]}}}.`);
        count += 1;
      } else {
        lines.push(phrase);
        count += refs;
      }
    }
    references += count;
    sections.push({
      name: `tools:guide_${index}`,
      order: 100 + index,
      text: lines.join("\n"),
    });
  }
  if (references !== 200) throw new Error(`built ${references} references`);
  return sections;
}

const sections = realisticSections();
const assembly: PromptAssembly = { sections, tools: [], variables: VARIABLES };
const template = sections.map((s) => s.text).join("\n\n");
const preRendered: AssembledSection[] = sections.map((section) => ({
  ...section,
  text: renderPrompt({ sections: [section], tools: [], variables: VARIABLES }),
}));

Mustache.escape = (text: string) => text;
Mustache.parse(template);
const handlebarsTemplate = Handlebars.compile(template, {
  strict: true,
  noEscape: true,
});

// The contenders must produce the very same text, or the comparison is void.
const expected = renderPrompt(assembly);
for (
  const [name, output] of [
    ["join", preRendered.map((s) => s.text).join("\n\n")],
    ["mustache", Mustache.render(template, VARIABLES)],
    ["handlebars", handlebarsTemplate(VARIABLES)],
  ]
) {
  if (output !== expected) throw new Error(`${name} renders differently`);
}
console.log(
  `7 KB prompt: ${template.length} chars of template, ` +
    `${sections.length} sections, ${NAMES.length} variables`,
);

const MB = 1024 * 1024;
const opens1 = {
  sections: [{ name: "s", order: 0, text: "{{".repeat(MB / 2) }],
};
const opens4 = {
  sections: [{ name: "s", order: 0, text: "{{".repeat(2 * MB) }],
};
const opens4Closed = {
  sections: [{ name: "s", order: 0, text: "{{".repeat(2 * MB) + "}}" }],
};
const escapes1 = {
  sections: [{ name: "s", order: 0, text: "\\{{".repeat(MB / 3) + "}}" }],
};
if (
  renderPrompt({ ...escapes1, tools: [], variables: {} }) !==
    "{{".repeat(MB / 3) + "}}"
) throw new Error("`\\{{` must render `{{`");
for (const adversarial of [opens1, opens4]) {
  const text = adversarial.sections[0].text;
  if (renderPrompt({ ...adversarial, tools: [], variables: {} }) !== text) {
    throw new Error("`{{` without `}}` must render verbatim");
  }
}

let sink = "";

Deno.bench({
  name: "renderPrompt",
  group: "7 KB prompt",
  baseline: true,
  fn() {
    sink = renderPrompt(assembly);
  },
});

Deno.bench({
  name: "join of pre-rendered sections (lower bound)",
  group: "7 KB prompt",
  fn() {
    sink = preRendered.map((s) => s.text).join("\n\n");
  },
});

Deno.bench({
  name: "Mustache.render (pre-parsed, no escaping)",
  group: "7 KB prompt",
  fn() {
    sink = Mustache.render(template, VARIABLES);
  },
});

Deno.bench({
  name: "Handlebars (precompiled, strict, noEscape)",
  group: "7 KB prompt",
  fn() {
    sink = handlebarsTemplate(VARIABLES);
  },
});

Deno.bench({
  name: "1 MB of `{{` (verbatim)",
  group: "adversarial",
  baseline: true,
  fn() {
    sink = renderPrompt({ ...opens1, tools: [], variables: {} });
  },
});

Deno.bench({
  name: "4 MB of `{{` (verbatim)",
  group: "adversarial",
  fn() {
    sink = renderPrompt({ ...opens4, tools: [], variables: {} });
  },
});

Deno.bench({
  name: "4 MB of `{{` then `}}` (MALFORMED_REFERENCE)",
  group: "adversarial",
  fn() {
    try {
      sink = renderPrompt({ ...opens4Closed, tools: [], variables: {} });
    } catch (error) {
      if (!(error instanceof SystemPromptError)) throw error;
      sink = error.code;
    }
  },
});

Deno.bench({
  name: "1 MB of `\\{{` then `}}` (literal `{{`)",
  group: "adversarial",
  fn() {
    sink = renderPrompt({ ...escapes1, tools: [], variables: {} });
  },
});

globalThis.addEventListener("unload", () => {
  if (sink === "\0") console.log(sink);
});
