/**
 * Gemini `generateContent` bodies as blocks (SPEC 10.5): what
 * `@google/genai`'s `generateContent` takes (`{ model, contents, config }`,
 * the config holding `systemInstruction` and `tools`) or the REST body (the
 * same fields at the top). Each function declaration (or other tool), each
 * system part and each content part is a block, in the order tools,
 * system, contents (Gemini does not document how it orders them: an
 * assumption, as for OpenAI). Gemini has no marks; a `cachedContent`
 * reference is not simulated (its tokens are not in the body), but it is
 * the first block, of no tokens: the entry holds the system instruction
 * and the tools, so a replaced entry is a changed prefix.
 *
 * @module
 */

import {
  type Block,
  bodyError,
  contentBlock,
  isRecord,
  kind,
  messageBlock,
  type ParsedBody,
} from "../../src/cache/simulator/blocks.ts";

const EXPECTED = "expected a generateContent body { model?, contents, " +
  "config?: { systemInstruction?, tools? } }";

/**
 * Reads a Gemini body.
 *
 * @throws {SystemPromptError} `INVALID_CONFIG` for a body of another shape
 */
export function geminiBody(body: unknown): ParsedBody {
  if (!isRecord(body)) {
    throw bodyError(
      `the body is ${
        kind(body)
      }; expected a generateContent body { model?, contents, config? }`,
    );
  }
  const config = body.config === undefined ? body : body.config;
  if (!isRecord(config)) {
    throw bodyError(`config is ${kind(config)}; ${EXPECTED}`);
  }
  const entry = config.cachedContent;
  const blocks: Block[] = typeof entry === "string"
    ? [{
      id: "cachedContent",
      part: "system",
      key: `cachedContent\u0000${entry}`,
      text: "",
    }]
    : [];
  blocks.push(...toolBlocks(config.tools));
  const system = config.systemInstruction;
  if (system !== undefined) {
    partsOf(system, "systemInstruction").forEach((part, index) => {
      const text = typeof part === "string"
        ? part
        : typeof part.text === "string"
        ? part.text
        : JSON.stringify(part);
      blocks.push({
        id: `system:${index}`,
        part: "system",
        key: `system\u0000${text}`,
        text,
      });
    });
  }
  const { contents } = body;
  if (typeof contents === "string") {
    blocks.push(messageBlock("message:0.0", "user", contents));
    return { blocks, explicitMode: false };
  }
  const list = Array.isArray(contents) ? contents : [contents];
  // An array of parts (not of contents) is one user turn.
  const turns = list.every((item) => isRecord(item) && "parts" in item)
    ? list
    : [{ role: "user", parts: list }];
  turns.forEach((turn, index) => {
    const where = `contents[${index}]`;
    if (!isRecord(turn)) {
      throw bodyError(`${where} is ${kind(turn)}; ${EXPECTED}`);
    }
    const role = turn.role === undefined ? "user" : turn.role;
    if (typeof role !== "string") {
      throw bodyError(`${where}.role is ${kind(role)}; expected a string`);
    }
    partsOf(turn, where).forEach((part, j) => {
      const id = `message:${index}.${j}`;
      blocks.push(
        typeof part === "string"
          ? messageBlock(id, role, part)
          : contentBlock(id, role, part, undefined),
      );
    });
  });
  return { blocks, explicitMode: false };
}

/** Each function declaration, or a whole tool of another kind. */
function toolBlocks(tools: unknown): Block[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) {
    throw bodyError(`tools is ${kind(tools)}; expected an array of tools`);
  }
  return tools.flatMap((tool, index): Block[] => {
    if (!isRecord(tool)) {
      throw bodyError(`tools[${index}] is ${kind(tool)}; expected a tool`);
    }
    const declarations = tool.functionDeclarations;
    if (!Array.isArray(declarations)) {
      const json = JSON.stringify(tool);
      return [{ id: `tool:${index}`, part: "tools", key: json, text: json }];
    }
    return declarations.map((declaration, at) => {
      if (!isRecord(declaration) || typeof declaration.name !== "string") {
        throw bodyError(
          `tools[${index}].functionDeclarations[${at}] has no name`,
        );
      }
      const json = JSON.stringify(declaration);
      return {
        id: `tool:${declaration.name}`,
        part: "tools",
        key: json,
        text: json,
      };
    });
  });
}

/**
 * The parts of a `Content` (`{ parts }`), of a part list, of one part, or
 * a string: each a string or a part object.
 */
function partsOf(
  content: unknown,
  where: string,
): (string | Record<string, unknown>)[] {
  if (typeof content === "string") return [content];
  const parts = isRecord(content) && Array.isArray(content.parts)
    ? content.parts
    : Array.isArray(content)
    ? content
    : [content];
  return parts.map((part, index) => {
    if (typeof part === "string" || isRecord(part)) return part;
    throw bodyError(
      `${where} part ${index} is ${kind(part)}; expected a part { text, … }`,
    );
  });
}
