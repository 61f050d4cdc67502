/**
 * Splits a message into sentences, then sentences into clauses. Rules read one clause at a time, so
 * "Keep the location; change the quantity to 1500" yields two readings.
 *
 * A period ends a sentence only when whitespace and a non-lowercase character follow and the word
 * before it is not a known abbreviation or an initial; "?" and "!" always end one. Decimal points and
 * "$1.5M" never split because no whitespace follows them.
 */

const ABBREVIATIONS = new Set([
  "e.g",
  "i.e",
  "etc",
  "vs",
  "mr",
  "mrs",
  "ms",
  "dr",
  "prof",
  "sr",
  "jr",
  "st",
  "inc",
  "ltd",
  "corp",
  "co",
  "approx",
  "est",
  "dept",
  "jan",
  "feb",
  "mar",
  "apr",
  "jun",
  "jul",
  "aug",
  "sep",
  "sept",
  "oct",
  "nov",
  "dec",
  "mon",
  "tue",
  "wed",
  "thu",
  "fri",
  "sat",
  "sun",
  "p.s",
  "u.s",
]);

const BOUNDARY = /([.!?]+)(["')\]]*)(\s+)/g;
const LINE_BREAK = /\s*[\r\n]+\s*/;
const CLAUSE_BREAK = /\s*;\s*|\s+-{1,2}\s+/;
const LOWER_START = /^[a-z]/;
const WORD_BEFORE = /(?:^|[\s(])([A-Za-z][A-Za-z.]*)$/;

function splitLine(line: string, out: string[]): void {
  let start = 0;
  BOUNDARY.lastIndex = 0;
  for (let match = BOUNDARY.exec(line); match !== null; match = BOUNDARY.exec(line)) {
    const punct = match[1] ?? "";
    const end = match.index + punct.length + (match[2] ?? "").length;
    const next = line.charAt(match.index + match[0].length);
    if (next === "") break;
    if (punct === ".") {
      if (LOWER_START.test(next)) continue;
      const before = WORD_BEFORE.exec(line.slice(start, match.index))?.[1] ?? "";
      const word = before.toLowerCase();
      if (ABBREVIATIONS.has(word) || (before.length === 1 && /[A-Z]/.test(before))) continue;
      if (word === "no" && /\d/.test(next)) continue;
    }
    const sentence = line.slice(start, end).trim();
    if (sentence) out.push(sentence);
    start = match.index + match[0].length;
  }
  const rest = line.slice(start).trim();
  if (rest) out.push(rest);
}

/** Sentences of a message, in order; empty input gives an empty list. */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(LINE_BREAK)) {
    if (line) splitLine(line, out);
  }
  return out;
}

/** A spaced dash between two amounts or times is a range ("2 AM - 4 AM", "$10 - $20"), not a break. */
const RANGE_START = /(?:\d|\d\s*(?:[ap]\.?m\.?|%|[km]))$/i;
const RANGE_END = /^[$€£]?\d/;

/** Clauses of one sentence: split at semicolons and spaced dashes (" - ", " -- "), ranges kept whole. */
export function splitClauses(sentence: string): string[] {
  const out: string[] = [];
  let pending = "";
  let rest = sentence;
  for (let m = CLAUSE_BREAK.exec(rest); m !== null; m = CLAUSE_BREAK.exec(rest)) {
    const before = pending + rest.slice(0, m.index);
    const after = rest.slice(m.index + m[0].length);
    if (m[0].includes("-") && RANGE_START.test(before.trimEnd()) && RANGE_END.test(after)) {
      pending = `${before} - `;
    } else {
      const trimmed = before.trim();
      if (trimmed) out.push(trimmed);
      pending = "";
    }
    rest = after;
  }
  const last = (pending + rest).trim();
  if (last) out.push(last);
  return out;
}
