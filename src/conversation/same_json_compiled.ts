/**
 * The comparison of `same_json.ts` compiled for one kept value: straight
 * code reading each field by name, each read seeing one shape of object
 * step after step (the assembly's copies of a tool are alike), several
 * times faster than walking a plan. Pure.
 *
 * @module
 */

/** Both values are written the same. */
export const SAME = 0;
/** A sure difference (both written as held). */
export const DIFFERENT = -1;
/** Not sure: left to `JSON.stringify`. */
export const UNSURE = -2;

/** A comparison with one kept value: `SAME`, `DIFFERENT` or `UNSURE`. */
export type Compiled = (value: unknown) => number;

/** A string, a finite number, a boolean or null. */
export function writtenAsHeld(value: unknown): boolean {
  return typeof value === "string" || typeof value === "boolean" ||
    value === null || (typeof value === "number" && Number.isFinite(value));
}

/** After a mismatch: `DIFFERENT` when `value` is written as it is held. */
function mismatch(value: unknown): number {
  return writtenAsHeld(value) ? DIFFERENT : UNSURE;
}

/** False once the host forbade compiling (a CSP without unsafe-eval). */
let compiling = true;

/**
 * The comparison with `kept` compiled, or `undefined` when the host
 * forbids compiling. `kept` is JSON data (strings, finite numbers,
 * booleans, null, arrays and plain objects), as `planOf` checked.
 */
export function compiledComparison(kept: unknown): Compiled | undefined {
  if (!compiling) return undefined;
  const lines: string[] = [];
  let names = 0;
  const emit = (held: unknown, at: string): void => {
    if (writtenAsHeld(held)) {
      // JSON literals are JS literals; 0 also matches -0 (both written 0).
      lines.push(`if(${at}!==${JSON.stringify(held)})return m(${at});`);
      return;
    }
    if (Array.isArray(held)) {
      lines.push(
        `if(!Array.isArray(${at}))return m(${at});`,
        `if(${at}.length!==${held.length})return ${UNSURE};`,
      );
      held.forEach((item, index) => {
        const name = `v${names++}`;
        lines.push(`var ${name}=${at}[${index}];`);
        emit(item, name);
      });
      return;
    }
    const fields = held as Record<string, unknown>;
    const keys = Object.keys(fields);
    // An object JSON writes field by field: of Object's prototype chain
    // and without a toJSON (a Date, a boxed string, a class instance or a
    // null-prototype object is unsure). JSON writes the fields in this
    // order: another order or key is other bytes, unless a field is one
    // JSON leaves out (then unsure); an enumerable key of the prototype
    // comes after the own ones (unsure).
    const cases = keys.map((key, index) =>
      `case ${index}:if(k!==${JSON.stringify(key)})return ${UNSURE};break;`
    );
    lines.push(
      `if(typeof ${at}!=="object"||${at}===null||Array.isArray(${at}))` +
        `return m(${at});`,
      `if(${at}.constructor!==O||${at}.toJSON!==undefined)return ${UNSURE};`,
      `i=0;for(k in ${at}){switch(i++){${
        cases.join("")
      }default:return ${UNSURE};}}`,
      `if(i!==${keys.length})return ${UNSURE};`,
    );
    for (const key of keys) {
      const name = `v${names++}`;
      lines.push(`var ${name}=${at}[${JSON.stringify(key)}];`);
      emit(fields[key], name);
    }
  };
  emit(kept, "x");
  try {
    return new Function(
      "m",
      "O",
      `return function(x){var i,k;${lines.join("")}return ${SAME};}`,
    )(mismatch, Object) as Compiled;
  } catch (error) {
    // Only a host that forbids compiling (EvalError) is expected here.
    if (!(error instanceof EvalError)) throw error;
    compiling = false;
    return undefined;
  }
}
