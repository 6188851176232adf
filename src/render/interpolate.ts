/**
 * The interpolation engine behind `renderPrompt` and `renderRuntimeContext`:
 * one render call's target, the cached-template and one-pass interpolation
 * of each entry, and the join of the rendered entries. Pure but for the
 * bounded template cache, which changes no result.
 *
 * @module
 */

import { quote, SystemPromptError } from "../errors.ts";
import type { AssembledSection, PromptAssembly } from "../types.ts";
import type { RenderedList } from "./assembly_shape.ts";
import {
  describeType,
  invalidEntry,
  invalidList,
  invalidVariables,
} from "./assembly_shape.ts";
import { scanTemplate, type Template } from "./template.ts";
import { cachedTemplateOf } from "./template_cache.ts";
import { resolve, unclosed } from "./reference_errors.ts";

/** Rendered texts joined into one flat string at a time, past the first. */
const RUN_LENGTH = 1024;

type Variables = PromptAssembly["variables"];

/** Options of {@linkcode renderSections}. */
export interface RenderSectionsOptions {
  /** The assembly key the entries come from, for messages (default `"sections"`). */
  list?: RenderedList;
}

/**
 * Interpolates each entry of `sections` with `variables`, under the rules of
 * `renderPrompt`: the rendered text per entry, in order, `""` for
 * the ones that render empty. Checks the shape of what it reads (an array of
 * objects, an object of variables) and throws on the first failing entry.
 * Internal: shared by the renderers, not exported from `mod.ts`.
 */
export function renderSections(
  sections: readonly AssembledSection[],
  variables: Variables,
  options: RenderSectionsOptions = {},
): string[] {
  const list = options.list ?? "sections";
  const target = targetOf({ sections, variables, list });
  const rendered: string[] = new Array(sections.length);
  for (let index = 0; index < sections.length; index++) {
    rendered[index] = interpolate(entryAt(target, index), target);
  }
  return rendered;
}

/** What one render call interpolates, and where it came from. */
interface Source {
  readonly sections: readonly AssembledSection[];
  readonly variables: Variables;
  readonly list: RenderedList;
}

/** A render call in progress. */
interface Target extends Source {
  /** Texts the template cache missed and did not keep, so far. */
  uncached: number;
  /** Whether texts are rendered without looking them up in the cache. */
  bypassCache: boolean;
  /** The values of the references met so far, checked, by name. */
  readonly values: Map<string, string>;
}

/** Checks the lists' shapes once per render call. */
export function targetOf(source: Source): Target {
  const { sections, variables, list } = source;
  if (!Array.isArray(sections)) throw invalidList(list, sections);
  if (
    typeof variables !== "object" || variables === null ||
    Array.isArray(variables)
  ) throw invalidVariables(variables);
  return {
    sections,
    variables,
    list,
    uncached: 0,
    bypassCache: false,
    values: new Map(),
  };
}

/**
 * Renders every entry and joins the non-empty ones with one blank line.
 *
 * The first `RUN_LENGTH` texts are concatenated, which V8 defers as a rope.
 * Past them, each run of texts is joined into one flat string: a rope of
 * 100k sections stays alive until the render returns, so every young
 * collection during the render copies and promotes it, and the cost per
 * section grows with the prompt (measured: twice the time per section at
 * 100k). Flat runs keep what survives to the text itself.
 *
 * When most of a run missed the cache and was not kept, the cache is full
 * of other texts and the rest of this prompt does not fit in it: the rest is
 * rendered without looking texts up, as probing a large map for texts it
 * does not hold costs more than the render (measured: half the time of a
 * 100k-section prompt).
 */
export function renderJoined(target: Target): string {
  const sections = target.sections;
  let joined = "";
  let count = 0;
  let index = 0;
  for (; index < sections.length && count < RUN_LENGTH; index++) {
    const text = interpolate(entryAt(target, index), target);
    if (text === "") continue;
    joined = joined === "" ? text : joined + "\n\n" + text;
    count++;
  }
  if (index === sections.length) return joined;
  bypassWhenThrashing(target);
  const runs = [joined];
  let run: string[] = [];
  for (; index < sections.length; index++) {
    const text = interpolate(entryAt(target, index), target);
    if (text === "") continue;
    if (run.push(text) === RUN_LENGTH) {
      runs.push(run.join("\n\n"));
      run = [];
      bypassWhenThrashing(target);
    }
  }
  if (run.length > 0) runs.push(run.join("\n\n"));
  return runs.join("\n\n");
}

/** Checks the run just rendered: see {@linkcode renderJoined}. */
function bypassWhenThrashing(target: Target): void {
  if (target.uncached > RUN_LENGTH / 2) target.bypassCache = true;
  target.uncached = 0;
}

function entryAt(target: Target, index: number): AssembledSection {
  const section = target.sections[index];
  if (typeof section === "object" && section !== null) return section;
  throw invalidEntry(`${target.list}[${index}]`, section);
}

function interpolate(section: AssembledSection, target: Target): string {
  const text = section.text;
  if (typeof text !== "string") {
    throw new SystemPromptError(
      "INVALID_SECTION",
      `${entryLabel(section, target)} has text that is ` +
        `${describeType(text)}; an assembled ${entryKind(target)}'s text ` +
        `must be a string.`,
    );
  }
  const template = target.bypassCache ? undefined : cachedTemplateOf(text);
  if (template === undefined) {
    target.uncached++;
    return interpolateText(section, text, target);
  }
  const { literals, names, failure } = template;
  if (failure === undefined && names.length > 0) {
    return interpolateCached(template, text, { section, target });
  }
  const variables = target.variables;
  let rendered = literals[0];
  for (let index = 0; index < names.length; index++) {
    rendered += valueOf(names[index], section, target) + literals[index + 1];
  }
  if (failure === undefined) return rendered;
  if ("name" in failure) {
    return resolve(entryLabel(section, target), failure.name, variables);
  }
  throw unclosed(entryLabel(section, target), text, failure.open);
}

/**
 * A cached template without a malformed group, rendered: its last render
 * when every reference has the value it had then (each value read and
 * checked in text order all the same, so errors do not change), else
 * concatenated and remembered when the result is not much larger than
 * the text (a huge value must not stay alive in the cache).
 */
function interpolateCached(
  template: Template,
  text: string,
  { section, target }: { section: AssembledSection; target: Target },
): string {
  const { literals, names } = template;
  const last = template.last;
  if (last !== undefined) {
    let index = 0;
    while (
      index < names.length &&
      valueOf(names[index], section, target) === last.values[index]
    ) index++;
    if (index === names.length) return last.rendered;
  }
  // Values read above come from the render's own map now: each variable
  // is still read once.
  const values: string[] = new Array(names.length);
  for (let index = 0; index < names.length; index++) {
    values[index] = valueOf(names[index], section, target);
  }
  let rendered = literals[0];
  for (let index = 0; index < names.length; index++) {
    rendered += values[index] + literals[index + 1];
  }
  template.last = rendered.length <= 2 * text.length + 256
    ? { values, rendered }
    : undefined;
  return rendered;
}

/**
 * {@linkcode interpolate} in one pass over the text, with no template: the
 * scan of `parseTemplate`, the same reads and the same errors in the same
 * order, for texts the cache does not keep.
 *
 * The first `RUN_LENGTH` references are concatenated (a rope, cheapest for
 * the usual text); past them, the pieces are joined into one flat string
 * per run, as {@linkcode renderJoined} does for sections. A rope of one node
 * per reference stays alive until the render returns, so every young
 * collection copies and promotes it, and megabytes of references made the
 * heap grow into a full collection (measured on 4 MB of `{{a}}`: a third
 * of the render's time in scavenges, against under a tenth with runs).
 */
function interpolateText(
  section: AssembledSection,
  text: string,
  target: Target,
): string {
  let rendered = "";
  let count = 0;
  // Set past the first RUN_LENGTH references: the flat runs, and the
  // pieces of the current one.
  let runs: string[] | undefined;
  let run: string[] | undefined;
  const { tail, failure } = scanTemplate(text, (literal, name) => {
    const value = valueOf(name, section, target);
    if (run === undefined) {
      rendered += literal + value;
      if (++count === RUN_LENGTH) {
        runs = [rendered];
        run = [];
      }
      return;
    }
    if (literal !== "") run.push(literal);
    if (run.push(value) >= 2 * RUN_LENGTH) {
      runs!.push(run.join(""));
      run = [];
    }
  });
  if (failure === undefined && run !== undefined) {
    run.push(tail);
    runs!.push(run.join(""));
    return runs!.join("");
  }
  if (failure === undefined) return rendered === "" ? tail : rendered + tail;
  if ("name" in failure) {
    return resolve(entryLabel(section, target), failure.name, target.variables);
  }
  throw unclosed(entryLabel(section, target), text, failure.open);
}

/**
 * The value of reference `name`: an own key of the variables holding a
 * string, read once per render and kept in `target.values`; anything else
 * throws the reference's error.
 */
function valueOf(
  name: string,
  section: AssembledSection,
  target: Target,
): string {
  const known = target.values.get(name);
  if (known !== undefined) return known;
  const variables = target.variables;
  const value = variables[name];
  if (typeof value !== "string" || !Object.hasOwn(variables, name)) {
    return resolve(entryLabel(section, target), name, variables);
  }
  target.values.set(name, value);
  return value;
}

function entryKind(target: Target): string {
  return target.list === "sections" ? "section" : "runtime context entry";
}

/** `Section "name"` or `Runtime context entry "name"`, for messages. */
function entryLabel(section: AssembledSection, target: Target): string {
  const kind = entryKind(target);
  return `${kind[0].toUpperCase()}${kind.slice(1)} ${quote(section.name)}`;
}
