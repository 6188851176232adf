/**
 * The Gemini `generateContent` form (issue 45, SPEC 10.5): the whole body
 * of each step of its conversation, the answer read back and recognized,
 * its usage and its cache rules. Gemini caches implicitly (no marks: a
 * stable prefix is all it needs); by option, an explicit `cachedContents`
 * entry holds the system instruction and tools (`cached_contents.ts`).
 *
 * @module
 */

import { SystemPromptError } from "../../mod.ts";
import { quote } from "../../src/errors.ts";
import type {
  ConversationForm,
  FormBuilder,
  TailInput,
} from "../../src/conversation/form.ts";
import type { MarkSites } from "../../src/conversation/marks.ts";
import { ItemsLayout } from "../../src/conversation/report_layout.ts";
import { readUsageWith } from "../../src/cache/report/usage_reader.ts";
import { isObject, readLimit, readModel } from "../_kit/form_options.ts";
import { parentCuts, textsOf } from "../_kit/content_blocks.ts";
import { GEMINI_RULES } from "./rules.ts";
import { geminiUsage } from "./usage.ts";
import { toGemini } from "./request.ts";
import { GEMINI_SIMULATION } from "./simulation.ts";
import {
  geminiRecordOf,
  geminiResponseOf,
  readGeminiAnswer,
} from "./answer.ts";
import {
  CacheLedger,
  readCachedContents,
  recordedStorage,
  savedCachedContents,
  settleCachedContent,
} from "./cached_contents.ts";
import type {
  GeminiContent,
  GeminiConversationBody,
  GeminiPart,
} from "./conversation_types.ts";

const FORM = "geminiConversation";

/** Gemini reads no marks: the conversation places none. */
const SITES: MarkSites<GeminiContent> = {
  leadingItems: 0,
  partCount: (content) => content.parts.length,
  site: () => undefined,
  setMark: (parts) => [...parts],
};

/** The Gemini form. */
export const GEMINI_FORM: ConversationForm<
  GeminiContent,
  GeminiConversationBody
> = {
  id: "gemini",
  formerNames: [],
  title: "a Gemini",
  otelProvider: "gcp.gemini",
  functions: { start: FORM, resume: "resumeGeminiConversation" },
  cache: {
    rules: [GEMINI_RULES],
    rulesOf: () => GEMINI_RULES,
    liveBodyIsWire: true,
  },
  readUsage: (response) =>
    readUsageWith(
      "gemini",
      geminiResponseOf(response),
      (read, reader) => geminiUsage(read, reader, "gemini"),
    ),
  render: (assembly) => toGemini(assembly),
  builder: (options, ledger) =>
    builder(
      options as Record<string, unknown>,
      ledger instanceof CacheLedger ? ledger : new CacheLedger(),
    ),
  resumeOptions: (saved, given) => {
    const cached = isObject(saved.cachedContents) ||
        isObject(given?.cachedContents)
      ? {
        cachedContents: {
          ...saved.cachedContents as object,
          ...given?.cachedContents as object,
        },
      }
      : {};
    return { ...saved, ...given, ...cached };
  },
  personInput: (input) => readParts(input),
  resultContent: (content, id) => {
    if (typeof content === "string" && content !== "") return content;
    if (isObject(content)) return JSON.parse(JSON.stringify(content));
    throw new SystemPromptError(
      "INVALID_CONVERSATION_INPUT",
      `toolResult(${
        JSON.stringify(id)
      }) takes a non-empty string (sent as { output }) or a JSON object ` +
        `(the function response as it is); got ${quote(content)}.`,
    );
  },
  recognizes: (answer) => Array.isArray(answer.candidates),
  readAnswer: readGeminiAnswer,
  recordOf: geminiRecordOf,
  // No tool search of its own: the fixed search-and-call pair.
  deferredTools: "pair",
  storage: recordedStorage,
  marks: SITES,
  systemTexts: (head) => {
    const config = isObject(head.config) ? head.config : {};
    const system = config.systemInstruction;
    return textsOf(
      isObject(system) ? system.parts : undefined,
      (part) => part.text,
    );
  },
  layout: () =>
    new ItemsLayout({ name: "contents", sites: SITES as MarkSites<unknown> }),
  simulation: GEMINI_SIMULATION,
  // No compaction in the API: a summary asked for in one user turn.
  compaction: {
    by: "client",
    keepsTools: false,
    summary: (contents) =>
      contents.flatMap((content) =>
        content.role === "model"
          ? content.parts.flatMap((part) =>
            typeof part.text === "string" && part.thought !== true
              ? [part.text]
              : []
          )
          : []
      ).join("\n\n"),
    // Turns alternate: the instruction and the summary as the model's
    // answer (its text only, no thought).
    start: (instruction, summary) => [
      ...instruction,
      { role: "model", parts: [{ text: summary }] },
    ],
    // Carried as it came: Gemini checks thought signatures in the current
    // turn only, and a swap happens at a turn's end.
    unbound: (content) => content,
  },
};

/** A person's input: text, or parts (no function call or response). */
function readParts(input: unknown): GeminiPart[] {
  if (typeof input === "string" && input !== "") return [{ text: input }];
  const invalid = (detail: string) =>
    new SystemPromptError(
      "INVALID_CONVERSATION_INPUT",
      `user() takes a non-empty string or a non-empty array of Gemini ` +
        `parts; ${detail}.`,
    );
  if (!Array.isArray(input) || input.length === 0) {
    throw invalid(`got ${quote(input)}`);
  }
  for (const part of input) {
    if (!isObject(part)) throw invalid("a part is not an object");
    if ("functionCall" in part || "functionResponse" in part) {
      throw invalid("function responses go through toolResult(id, content)");
    }
  }
  return JSON.parse(JSON.stringify(input));
}

/** The options read and checked, and the conversation's requests. */
function builder(
  options: Record<string, unknown>,
  ledger: CacheLedger,
): FormBuilder<GeminiContent, GeminiConversationBody> {
  const model = readModel(options, FORM);
  const maxOutputTokens = readLimit(
    options.maxOutputTokens,
    "maxOutputTokens",
    FORM,
    { required: false },
  );
  const toolChoiceMode = options.toolChoiceMode;
  if (
    toolChoiceMode !== undefined && toolChoiceMode !== "auto" &&
    toolChoiceMode !== "required"
  ) {
    throw new SystemPromptError(
      "INVALID_CONFIG",
      `${FORM}'s toolChoiceMode is ${
        quote(toolChoiceMode)
      }; it must be "auto" or "required".`,
    );
  }
  const settings = readCachedContents(options.cachedContents);
  const saved: Record<string, unknown> = { model };
  if (maxOutputTokens !== undefined) saved.maxOutputTokens = maxOutputTokens;
  if (toolChoiceMode !== undefined) saved.toolChoiceMode = toolChoiceMode;
  if (settings !== undefined) {
    saved.cachedContents = savedCachedContents(settings);
  }
  return {
    saved,
    rules: GEMINI_RULES,
    // No form of its own for a change told inline yet (SPEC 10.1): the
    // system prompt and tools are rebuilt, as 0.4 did.
    changes: { sections: "rebuild", tools: "rebuild", output: "rebuild" },
    redefine: "inline",
    prefixLimit: 0,
    markFor: () => undefined,
    tail,
    head: (input) => {
      const { systemInstruction, tools, toolConfig } = toGemini(
        input.assembly,
        toolChoiceMode === undefined ? {} : { toolChoiceMode } as never,
      );
      if (systemInstruction !== undefined && input.parentSystem) {
        const parts = systemInstruction.parts;
        parentCuts(parts.map((part) => part.text), input.parentSystem)
          .forEach((text, index) => parts[index].text = text);
      }
      const kept = input.state.cachedContent;
      return {
        recorded: {
          model,
          config: {
            ...(systemInstruction === undefined ? {} : { systemInstruction }),
            ...(tools === undefined ? {} : { tools }),
            ...(toolConfig === undefined ? {} : { toolConfig }),
            ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
          },
        },
        state: kept === undefined ? {} : { cachedContent: kept },
      };
    },
    ...(settings === undefined ? {} : {
      settle: (head, now) =>
        settleCachedContent(head, now, { settings, ledger }),
      recorded: ({ before, after }, now) =>
        ledger.recorded(before, after, { now, caches: settings.caches }),
    }),
    body: (head, contents) =>
      ({ ...head.recorded, contents }) as unknown as GeminiConversationBody,
  };
}

/** A step's new user turn: function responses, the person's parts, the update. */
function tail(input: TailInput<GeminiContent>): GeminiContent[] {
  const own = ownCallIds(input.history.at(-1));
  const parts: GeminiPart[] = [
    ...input.results.map((result): GeminiPart => {
      const content = result.content;
      const response = typeof content === "string"
        ? result.isError ? { error: content } : { output: content }
        : content as Record<string, unknown>;
      return {
        functionResponse: {
          ...(own.has(result.id) ? { id: result.id } : {}),
          name: result.name,
          response,
        },
      };
    }),
    ...input.person as GeminiPart[],
    ...(input.update === undefined ? [] : [{ text: input.update }]),
  ];
  return parts.length === 0 ? [] : [{ role: "user", parts }];
}

/** The ids the model gave its calls (Gemini's API gives none; Vertex may). */
function ownCallIds(content: GeminiContent | undefined): Set<string> {
  const ids = new Set<string>();
  for (const part of content?.role === "model" ? content.parts : []) {
    const id = part.functionCall?.id;
    if (typeof id === "string") ids.add(id);
  }
  return ids;
}
