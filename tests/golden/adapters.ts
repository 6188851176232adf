/**
 * The golden bodies of the stateless adapters (issue 45): `toMessages`,
 * `toChatCompletions`, `toResponses`, `toAISDK`, `toConverse` and
 * `toGemini` on W1 and on the adapter tests' assemblies, across their
 * option matrices.
 */
import { toMessages } from "../../adapters/anthropic/mod.ts";
import { toChatCompletions, toResponses } from "../../adapters/openai/mod.ts";
import { toAISDK } from "../../adapters/ai_sdk/mod.ts";
import { toConverse } from "../../adapters/bedrock/mod.ts";
import { toGemini } from "../../adapters/gemini/mod.ts";
import type { PromptAssembly } from "../../mod.ts";
import { buildW1, W1_CONTEXT } from "../bench/w1.ts";
import {
  buildRegistry,
  PLUGINS,
  sampleAssembly,
} from "../adapters/fixtures.ts";

/** Every combination of the options' values (`undefined`: left out). */
function matrix(
  axes: Readonly<Record<string, readonly unknown[]>>,
): Record<string, unknown>[] {
  let rows: Record<string, unknown>[] = [{}];
  for (const [key, values] of Object.entries(axes)) {
    rows = rows.flatMap((row) =>
      values.map((value) =>
        value === undefined ? row : { ...row, [key]: value }
      )
    );
  }
  return rows;
}

const ANTHROPIC_CACHE = [undefined, true, false, { ttl: "1h" }];
const OPENAI_CACHE = [undefined, true, { ttl: "12h" }];
const GATING = [undefined, "keep"];
const LIMITS = [undefined, 0, 1, 2, 4];
const BREAKPOINTS = [undefined, "explicit"];

/** Each adapter and its option matrix. */
const ADAPTERS: readonly {
  name: string;
  run: (assembly: PromptAssembly, options: never) => unknown;
  options: Record<string, unknown>[];
}[] = [
  {
    name: "toMessages",
    run: toMessages,
    options: matrix({
      cache: ANTHROPIC_CACHE,
      gating: GATING,
      maxCacheBreakpoints: LIMITS,
      breakpoints: BREAKPOINTS,
    }),
  },
  ...[["toChatCompletions", toChatCompletions], ["toResponses", toResponses]]
    .map(([name, run]) => ({
      name: name as string,
      run: run as (assembly: PromptAssembly, options: never) => unknown,
      options: matrix({
        cache: OPENAI_CACHE,
        gating: GATING,
        maxCacheBreakpoints: [undefined, 0, 1, 4],
        breakpoints: BREAKPOINTS,
        strict: [undefined, true],
        toolChoiceMode: [undefined, "required"],
        promptCacheKey: [undefined, "golden"],
      }),
    })),
  {
    name: "toAISDK",
    run: toAISDK,
    options: matrix({
      cache: ANTHROPIC_CACHE,
      gating: GATING,
      maxCacheBreakpoints: [undefined, 1, 4],
      breakpoints: BREAKPOINTS,
      cacheProviders: [undefined, ["bedrock"], ["anthropic", "bedrock"]],
    }),
  },
  {
    name: "toConverse",
    run: toConverse,
    options: matrix({
      cache: ANTHROPIC_CACHE,
      gating: GATING,
      maxCacheBreakpoints: LIMITS,
    }),
  },
  {
    name: "toGemini",
    run: toGemini,
    options: matrix({ toolChoiceMode: [undefined, "required"] }),
  },
];

/** The assemblies the adapters map. */
async function assemblies(): Promise<Map<string, PromptAssembly>> {
  const found = new Map<string, PromptAssembly>();
  const w1 = buildW1();
  found.set("w1", await w1.assemble(W1_CONTEXT));
  found.set("w1-global", await w1.assemble({}));
  await w1.dispose();
  found.set("sample", sampleAssembly());
  const gated = sampleAssembly();
  found.set("sample-gated", {
    ...gated,
    activeTools: ["shell"],
    toolStability: { read_file: "agent", shell: "volatile" },
  } as PromptAssembly);
  const plugins = buildRegistry(PLUGINS, ["tools:files"]);
  found.set("plugins", await plugins.assemble());
  await plugins.dispose();
  return found;
}

/**
 * Every adapter's fields: key `adapter/assembly/cache,gating`, the fields
 * of every other option combination in matrix order (`--dump` lists them).
 */
export async function adapterBodies(): Promise<Map<string, unknown>> {
  const golden = new Map<string, unknown>();
  for (const [name, assembly] of await assemblies()) {
    for (const adapter of ADAPTERS) {
      for (const options of adapter.options) {
        const key = `${adapter.name}/${name}/${
          JSON.stringify(options.cache) ?? "-"
        },${options.gating ?? "-"}`;
        let fields: unknown;
        try {
          fields = adapter.run(assembly, options as never);
        } catch (error) {
          fields = { threw: (error as { code?: string }).code ?? "?" };
        }
        const list = (golden.get(key) ?? []) as unknown[];
        list.push({ options, fields });
        golden.set(key, list);
      }
    }
  }
  return golden;
}
