/**
 * The mutants of `scripts/mutation.ts`: a small TypeScript scanner that
 * tells code from comments, strings and regular expressions, and the
 * mutation operators, each a pure function from one source file to its
 * candidate mutants. No Deno API here: it only reads strings.
 *
 * @module
 */

/** One candidate change of one file. */
export interface Mutant {
  /** Path relative to the repository root, with `/` separators. */
  file: string;
  /** 1-based first line changed. */
  line: number;
  /** The operator's name, for example `comparison`. */
  operator: string;
  /** The lines `line`… as they were. */
  original: string[];
  /** The same number of lines, mutated (deleted lines become empty). */
  mutated: string[];
}

/** What a character of the source is. */
const CODE = 0;
const COMMENT = 1;
const STRING = 2;
const REGEX = 3;

/** A scanned file: the kind of every character, and its string literals. */
export interface Scan {
  kinds: Uint8Array;
  /** `[start, end)` of each string literal, quotes included. */
  strings: [number, number][];
}

/** Characters after which a `/` starts a regular expression, not a division. */
const BEFORE_REGEX = new Set("(,=:[!&|?{};+-*%<>~^".split(""));

/** Scans `source`: comments, strings, template texts and regexes vs code. */
export function scan(source: string): Scan {
  const kinds = new Uint8Array(source.length);
  const strings: [number, number][] = [];
  const templateDepths: number[] = []; // brace depth at each open `${`
  let depth = 0;
  let last = ""; // the last significant code character
  let i = 0;
  const mark = (from: number, to: number, kind: number): void => {
    kinds.fill(kind, from, to);
  };
  while (i < source.length) {
    const ch = source[i];
    const next = source[i + 1];
    if (ch === "/" && next === "/") {
      const end = source.indexOf("\n", i);
      const stop = end === -1 ? source.length : end;
      mark(i, stop, COMMENT);
      i = stop;
    } else if (ch === "/" && next === "*") {
      const stop = source.indexOf("*/", i + 2) + 2;
      mark(i, stop, COMMENT);
      i = stop;
    } else if (ch === '"' || ch === "'") {
      const stop = skipQuoted(source, i, ch);
      mark(i, stop, STRING);
      strings.push([i, stop]);
      i = stop;
      last = ch;
    } else if (ch === "`" || (ch === "}" && depth === templateDepths.at(-1))) {
      if (ch === "}") templateDepths.pop();
      const [stop, opensExpression] = skipTemplate(source, i + 1);
      mark(i, stop, STRING);
      if (opensExpression) templateDepths.push(depth);
      i = stop;
      last = "`";
    } else if (ch === "/" && (BEFORE_REGEX.has(last) || last === "")) {
      const stop = skipRegex(source, i);
      mark(i, stop, REGEX);
      i = stop;
      last = "/";
    } else {
      if (ch === "{") depth++;
      if (ch === "}") depth--;
      if (!/\s/.test(ch)) last = /[\w$]/.test(ch) ? wordBefore(source, i) : ch;
      i++;
    }
  }
  return { kinds, strings };
}

/** `return`, `typeof` and friends may precede a regex; other words may not. */
function wordBefore(source: string, end: number): string {
  let start = end;
  while (start > 0 && /[\w$]/.test(source[start - 1])) start--;
  const word = source.slice(start, end + 1);
  return /^(return|typeof|case|throw|in|of|await|yield)$/.test(word)
    ? "="
    : "a";
}

function skipQuoted(source: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < source.length && source[i] !== quote && source[i] !== "\n") {
    i += source[i] === "\\" ? 2 : 1;
  }
  return i + 1;
}

/** From inside a template: to after its closing backtick or its `${`. */
function skipTemplate(source: string, start: number): [number, boolean] {
  let i = start;
  while (i < source.length) {
    if (source[i] === "\\") i += 2;
    else if (source[i] === "`") return [i + 1, false];
    else if (source[i] === "$" && source[i + 1] === "{") return [i + 2, true];
    else i++;
  }
  return [i, false];
}

function skipRegex(source: string, start: number): number {
  let i = start + 1;
  let inClass = false;
  while (i < source.length && source[i] !== "\n") {
    const ch = source[i];
    if (ch === "\\") i++;
    else if (ch === "[") inClass = true;
    else if (ch === "]") inClass = false;
    else if (ch === "/" && !inClass) break;
    i++;
  }
  i++;
  while (/[a-z]/.test(source[i] ?? "")) i++;
  return i;
}

/** A source file split into lines, with what each line may be mutated at. */
interface Lines {
  file: string;
  source: string;
  lines: string[];
  /** Offset of each line's first character in `source`. */
  starts: number[];
  scan: Scan;
  /** Lines that are imports, type declarations or have no code. */
  skipped: Set<number>;
}

function split(file: string, source: string): Lines {
  const lines = source.split("\n");
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  const scanned = scan(source);
  return {
    file,
    source,
    lines,
    starts,
    scan: scanned,
    skipped: skippedLines(lines, starts, scanned),
  };
}

const DECLARATION_START = new RegExp(
  String.raw`^\s*(import\b|export\s+(\*|(type\s*)?\{[^}]*\}\s*from)|` +
    String.raw`(export\s+)?(declare\s|interface\s+[\w$]+|` +
    String.raw`type\s+[\w$]+\s*(<|=)))`,
);

/**
 * Imports, re-exports and type-only declarations (`interface`, `type`,
 * `declare`), up to their end, and lines without code.
 */
function skippedLines(
  lines: string[],
  starts: number[],
  scanned: Scan,
): Set<number> {
  const skipped = new Set<number>();
  let open = 0; // brace balance of the declaration being skipped
  let inside = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    const code = codeOf(line, starts[index], scanned);
    if (code.trim() === "") {
      skipped.add(index);
      continue;
    }
    const starting = !inside && DECLARATION_START.test(code);
    if (!starting && !inside) continue;
    inside = true;
    skipped.add(index);
    for (const ch of code) open += ch === "{" ? 1 : ch === "}" ? -1 : 0;
    if (open <= 0 && /[;}]\s*$/.test(code)) {
      inside = false;
      open = 0;
    }
  }
  return skipped;
}

/** The line with every non-code character replaced by a space. */
function codeOf(line: string, start: number, scanned: Scan): string {
  let code = "";
  for (let i = 0; i < line.length; i++) {
    code += scanned.kinds[start + i] === CODE ? line[i] : " ";
  }
  return code;
}

/** One replacement inside a line. */
interface Edit {
  column: number;
  length: number;
  text: string;
}

type LineOperator = (code: string, line: string) => Edit[];

function replaceAll(
  pattern: RegExp,
  replace: (match: RegExpExecArray) => string | undefined,
  group = 0,
): LineOperator {
  return (code) => {
    const edits: Edit[] = [];
    for (const match of code.matchAll(pattern)) {
      const text = replace(match);
      if (text === undefined) continue;
      const offset = group === 0 ? 0 : match[0].indexOf(match[group]);
      edits.push({
        column: match.index! + offset,
        length: match[group].length,
        text,
      });
    }
    return edits;
  };
}

const COMPARISON: Record<string, string> = {
  "===": "!==",
  "!==": "===",
  "<": "<=",
  "<=": "<",
  ">": ">=",
  ">=": ">",
};

const TYPEOF_SWAP: Record<string, string> = {
  string: "number",
  number: "string",
  object: "function",
  function: "object",
  undefined: "object",
  symbol: "string",
  boolean: "string",
  bigint: "number",
};

/** Operators that change a span of one line, on code characters only. */
const LINE_OPERATORS: Record<string, LineOperator> = {
  // Formatted code spaces binary operators; generics (`Map<K, V>`) do not.
  comparison: replaceAll(
    /(?<= )(===|!==|<=|>=|<|>)(?= )/g,
    (m) => COMPARISON[m[1]],
    1,
  ),
  logical: replaceAll(
    /(?<= )(&&|\|\|)(?= )/g,
    (m) => m[1] === "&&" ? "||" : "&&",
    1,
  ),
  boolean: replaceAll(
    /\b(true|false)\b/g,
    (m) => m[1] === "true" ? "false" : "true",
    1,
  ),
  "remove-await": replaceAll(/\bawait (?!using\b)/g, () => ""),
  increment,
  "remove-copy": replaceAll(
    /\[\.\.\.([\w$.#]+)\]|\{ \.\.\.([\w$.]+) \}|\.slice\(\)/g,
    (m) => m[1] ?? m[2] ?? "",
  ),
  "negate-condition": negateCondition,
};

/** `if (c)` / `while (c)` on one line → `if (!(c))`. */
function negateCondition(code: string, line: string): Edit[] {
  const edits: Edit[] = [];
  for (const match of code.matchAll(/\b(if|while) \(/g)) {
    const open = match.index! + match[0].length - 1;
    let balance = 0;
    for (let i = open; i < code.length; i++) {
      balance += code[i] === "(" ? 1 : code[i] === ")" ? -1 : 0;
      if (balance === 0) {
        // Balanced on code characters; the text comes from the real line.
        const inner = line.slice(open + 1, i);
        edits.push({
          column: open + 1,
          length: inner.length,
          text: `!(${inner})`,
        });
        break;
      }
    }
  }
  return edits;
}

/**
 * `++` ↔ `--`, except in a `for (...)` header, where it makes the loop run
 * forever: a timeout that costs a minute and teaches nothing.
 */
function increment(code: string): Edit[] {
  if (/\bfor \(/.test(code)) return [];
  return replaceAll(/(\+\+|--)/g, (m) => m[1] === "++" ? "--" : "++", 1)(
    code,
    code,
  );
}

/** String literals that are codes (`"DISPOSED"`) or `typeof` results. */
function stringMutants(lines: Lines): Mutant[] {
  const mutants: Mutant[] = [];
  for (const [start, end] of lines.scan.strings) {
    const value = lines.source.slice(start + 1, end - 1);
    const replacement = /^[A-Z][A-Z0-9_]{2,}$/.test(value)
      ? "MUTATED_CODE"
      : TYPEOF_SWAP[value];
    if (replacement === undefined) continue;
    const index = lineAt(lines, start);
    if (lines.skipped.has(index)) continue;
    const column = start - lines.starts[index] + 1;
    mutants.push(
      oneLine(lines, index, "string-literal", {
        column,
        length: value.length,
        text: replacement,
      }),
    );
  }
  return mutants;
}

function lineAt(lines: Lines, offset: number): number {
  let low = 0;
  let high = lines.starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (lines.starts[middle] <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

function oneLine(
  lines: Lines,
  index: number,
  operator: string,
  edit: Edit,
): Mutant {
  const line = lines.lines[index];
  return {
    file: lines.file,
    line: index + 1,
    operator,
    original: [line],
    mutated: [
      line.slice(0, edit.column) + edit.text +
      line.slice(edit.column + edit.length),
    ],
  };
}

const STATEMENT_START =
  /^\s*(throw |return\b|await |break;|continue;|[\w$]+(\.[\w$]+|\[[^\]]*\])*(\(|\s*(=|\+=|-=|\+\+|--)(?!=)))/;

/**
 * Deletes a whole statement that starts a line: a `throw`, a `return`, an
 * awaited or plain call, an assignment. It may span lines; it must start
 * after a `{`, `;` or `}` and end with a `;` that ends its line.
 */
function statementMutants(lines: Lines): Mutant[] {
  const mutants: Mutant[] = [];
  const { kinds } = lines.scan;
  for (let index = 0; index < lines.lines.length; index++) {
    if (lines.skipped.has(index)) continue;
    const code = codeOf(lines.lines[index], lines.starts[index], lines.scan);
    if (
      !STATEMENT_START.test(code) || /^\s*(const|let|var|super)\b/.test(code)
    ) {
      continue;
    }
    let before = lines.starts[index] - 1;
    while (
      before >= 0 && (kinds[before] !== CODE || /\s/.test(lines.source[before]))
    ) {
      before--;
    }
    if (before >= 0 && !"{;}".includes(lines.source[before])) continue;
    const end = statementEnd(lines, index);
    if (end === undefined) continue;
    const original = lines.lines.slice(index, end + 1);
    mutants.push({
      file: lines.file,
      line: index + 1,
      operator: "delete-statement",
      original,
      mutated: original.map(() => ""),
    });
  }
  return mutants;
}

/** The line where the statement starting at `index` ends, if it is simple. */
function statementEnd(lines: Lines, index: number): number | undefined {
  let balance = 0;
  for (let at = index; at < Math.min(lines.lines.length, index + 15); at++) {
    const code = codeOf(lines.lines[at], lines.starts[at], lines.scan);
    for (let i = 0; i < code.length; i++) {
      const ch = code[i];
      if ("([{".includes(ch)) balance++;
      else if (")]}".includes(ch)) balance--;
      if (balance < 0) return undefined;
      if (ch === ";" && balance === 0) {
        return code.slice(i + 1).trim() === "" ? at : undefined;
      }
    }
  }
  return undefined;
}

/** Every candidate mutant of one file, in line order. */
export function mutantsOf(file: string, source: string): Mutant[] {
  const lines = split(file, source);
  const mutants: Mutant[] = [];
  for (let index = 0; index < lines.lines.length; index++) {
    if (lines.skipped.has(index)) continue;
    const code = codeOf(lines.lines[index], lines.starts[index], lines.scan);
    for (const [operator, apply] of Object.entries(LINE_OPERATORS)) {
      for (const edit of apply(code, lines.lines[index])) {
        mutants.push(oneLine(lines, index, operator, edit));
      }
    }
  }
  mutants.push(...stringMutants(lines), ...statementMutants(lines));
  return mutants.sort((a, b) => a.line - b.line);
}

/** `source` with `mutant` applied. */
export function applyMutant(source: string, mutant: Mutant): string {
  const lines = source.split("\n");
  lines.splice(mutant.line - 1, mutant.mutated.length, ...mutant.mutated);
  return lines.join("\n");
}
