/**
 * What looks volatile in text: values that change between deployments,
 * agents or steps and so should not sit in a cached prefix. Every check
 * runs in time linear in the text: the regular expressions have fixed-width
 * parts or one greedy run whose end cannot be given back usefully, and the
 * URL scan is a plain loop.
 *
 * @module
 */

/** One kind of volatile-looking value, with the first one found. */
export interface VolatileMatch {
  /** What it is, for a message: "a UUID", "an ISO-8601 date". */
  readonly what: string;
  /** The value found (at most 40 characters). */
  readonly sample: string;
}

const UUID =
  /(?<![0-9a-f])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f])/i;
const ISO_DATE =
  /(?<![0-9])[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2})?)?(?![0-9])/;
const ISO_TIME =
  /(?<![0-9:])(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?![0-9])/;
/** Seconds or milliseconds since 1970, from 2001 to 2033. */
const EPOCH = /(?<![0-9])1[0-9]{9}(?:[0-9]{3})?(?![0-9])/;
const TEMP_PATH =
  /(?<![\w.])(?:\/private)?\/var\/folders\/|(?<![\w.])\/(?:var\/)?tmp\/|\\AppData\\Local\\Temp\\|%TEMP%|\$TMPDIR\b/i;
/** Runs of 16+ hex digits; {@linkcode hexId} keeps those with a digit. */
const HEX_RUN = /(?<![0-9a-z])[0-9a-f]{16,}(?![0-9a-z])/gi;

const CHECKS: readonly (readonly [string, RegExp])[] = [
  ["a UUID", UUID],
  ["an ISO-8601 date", ISO_DATE],
  ["an ISO-8601 time", ISO_TIME],
  ["an epoch timestamp", EPOCH],
  ["a temporary path", TEMP_PATH],
];

const SAMPLE_LENGTH = 40;

function sampleOf(value: string): string {
  return value.length <= SAMPLE_LENGTH
    ? value
    : `${value.slice(0, SAMPLE_LENGTH - 1)}…`;
}

/** Each kind of volatile-looking value in `text`, in a fixed order. */
export function volatileMatches(text: string): VolatileMatch[] {
  const found: VolatileMatch[] = [];
  for (const [what, pattern] of CHECKS) {
    const match = pattern.exec(text);
    if (match !== null) found.push({ what, sample: sampleOf(match[0]) });
  }
  const hex = hexId(text);
  if (hex !== undefined) {
    found.push({ what: "a hex id of 16+ characters", sample: sampleOf(hex) });
  }
  const url = urlWithQuery(text);
  if (url !== undefined) {
    found.push({ what: "a URL with a query string", sample: sampleOf(url) });
  }
  return found;
}

/** The first run of 16+ hex digits holding a digit and a letter. */
function hexId(text: string): string | undefined {
  HEX_RUN.lastIndex = 0;
  for (const [run] of text.matchAll(HEX_RUN)) {
    // All letters is a word; all digits is a number (an epoch, a count).
    if (/[0-9]/.test(run) && /[a-f]/i.test(run)) return run;
  }
  return undefined;
}

/** Ends a URL: whitespace, quotes and brackets. */
const URL_END = /[\s"'<>()[\]{}`]/;

/**
 * The first `http(s)://` URL whose query string is non-empty. One pass:
 * each URL is scanned to its end once, and the search resumes after it.
 */
function urlWithQuery(text: string): string | undefined {
  let from = 0;
  while (from < text.length) {
    const scheme = text.indexOf("://", from);
    if (scheme === -1) return undefined;
    let start = scheme;
    while (start > scheme - 5 && start > 0 && /[a-z]/i.test(text[start - 1])) {
      start--;
    }
    let end = scheme + 3;
    let query = -1;
    while (end < text.length && !URL_END.test(text[end])) {
      if (text[end] === "?" && query === -1) query = end;
      else if (text[end] === "#" && query === -1) query = -2;
      end++;
    }
    const name = text.slice(start, scheme).toLowerCase();
    if (
      (name === "http" || name === "https") && query >= 0 &&
      query + 1 < end
    ) {
      return text.slice(start, end);
    }
    from = end;
  }
  return undefined;
}
