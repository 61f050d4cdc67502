/**
 * The token FTS5's `porter unicode61` tokenizer makes of one query word, for the words whose token can be
 * worked out here exactly: runs of ASCII letters and digits (unicode61 only folds their case). FTS5 keeps
 * each token's instances under that token, so a held ranking can read a word's postings straight from an
 * `fts5vocab` instance table instead of asking bm25 for every matching row (held-bm25.ts).
 *
 * The steps are Porter's (1980), as SQLite's fts5_porter.c applies them: a token shorter than three
 * bytes or longer than 64 is left as it is; in each of steps 2–4 only the longest suffix a word ends in
 * is tried, and when its condition fails the step does nothing; the letter "y" is a vowel after a
 * consonant (for the measure and *o) or anywhere but the start (for *v*). Whoever uses the token still
 * checks what it finds against FTS5 (held-bm25.ts `agrees`: FTS5's score for one of its rows), so a word
 * this got wrong costs only speed.
 */

/** FTS5_PORTER_MAX_TOKEN: longer tokens are passed through unstemmed. */
const MAX_TOKEN = 64;

const isVowel = (c: string, yIsVowel: boolean) =>
  c === "a" || c === "e" || c === "i" || c === "o" || c === "u" || (yIsVowel && c === "y");

/**
 * Past the first vowel-then-consonant run of `word` (from `from`, the letter before it a consonant or
 * not): where it ends, or -1 when there is none.
 */
function vcEnd(word: string, from: number, previousConsonant: boolean): number {
  let consonant = previousConsonant;
  let i = from;
  for (; i < word.length; i++) {
    consonant = !isVowel(word[i] as string, consonant);
    if (!consonant) break;
  }
  for (i++; i < word.length; i++) {
    consonant = !isVowel(word[i] as string, consonant);
    if (consonant) return i + 1;
  }
  return -1;
}

/** Porter's measure m of `stem`, compared: m > 0. */
const measureAbove0 = (stem: string) => vcEnd(stem, 0, false) !== -1;

/** m > 1. */
function measureAbove1(stem: string): boolean {
  const first = vcEnd(stem, 0, false);
  return first !== -1 && vcEnd(stem, first, true) !== -1;
}

/** m = 1. */
function measureIs1(stem: string): boolean {
  const first = vcEnd(stem, 0, false);
  return first !== -1 && vcEnd(stem, first, true) === -1;
}

/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y. */
function endsCvc(stem: string): boolean {
  const last = stem[stem.length - 1];
  if (last === "w" || last === "x" || last === "y") return false;
  let mask = 0;
  let consonant = false;
  for (const c of stem) {
    consonant = !isVowel(c, consonant);
    mask = (mask << 1) | (consonant ? 1 : 0);
  }
  return (mask & 7) === 5;
}

/** *v*: the stem holds a vowel ("y" counting as one past the first letter). */
function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (isVowel(stem[i] as string, i > 0)) return true;
  return false;
}

type Rule = [suffix: string, replacement: string];

/**
 * A step's rules: the longest suffix `word` ends in, with something before it, is replaced when `when`
 * holds for what comes before it; no other suffix is tried either way.
 */
function step(word: string, rules: readonly Rule[], when: (stem: string, suffix: string) => boolean): string {
  for (const [suffix, replacement] of rules) {
    if (word.length > suffix.length && word.endsWith(suffix)) {
      const stem = word.slice(0, -suffix.length);
      return when(stem, suffix) ? stem + replacement : word;
    }
  }
  return word;
}

/** Longest first, so that the first one a word ends in is its longest. */
const byLength = (rules: Rule[]) => rules.sort((a, b) => b[0].length - a[0].length);

const STEP2 = byLength([
  ["ational", "ate"],
  ["tional", "tion"],
  ["enci", "ence"],
  ["anci", "ance"],
  ["izer", "ize"],
  ["bli", "ble"],
  ["alli", "al"],
  ["entli", "ent"],
  ["eli", "e"],
  ["ousli", "ous"],
  ["ization", "ize"],
  ["ation", "ate"],
  ["ator", "ate"],
  ["alism", "al"],
  ["iveness", "ive"],
  ["fulness", "ful"],
  ["ousness", "ous"],
  ["aliti", "al"],
  ["iviti", "ive"],
  ["biliti", "ble"],
  ["logi", "log"],
]);

const STEP3 = byLength([
  ["icate", "ic"],
  ["ative", ""],
  ["alize", "al"],
  ["iciti", "ic"],
  ["ical", "ic"],
  ["ful", ""],
  ["ness", ""],
]);

const STEP4 = byLength(
  [
    "al",
    "ance",
    "ence",
    "er",
    "ic",
    "able",
    "ible",
    "ant",
    "ement",
    "ment",
    "ent",
    "ion",
    "ou",
    "ism",
    "ate",
    "iti",
    "ous",
    "ive",
    "ize",
  ].map((suffix): Rule => [suffix, ""]),
);

/** Step 1a: plurals. */
function step1a(word: string): string {
  if (!word.endsWith("s")) return word;
  if (word.endsWith("sses") && word.length > 4) return word.slice(0, -2);
  if (word.endsWith("ies") && word.length > 3) return word.slice(0, -2);
  if (word.endsWith("ss")) return word;
  return word.slice(0, -1);
}

/** Step 1b: -eed, -ed, -ing, and what is left to tidy after the last two. */
function step1b(word: string): string {
  // A suffix is one only with something before it ("eed" alone ends in "ed").
  if (word.length > 3 && word.endsWith("eed")) {
    return measureAbove0(word.slice(0, -3)) ? word.slice(0, -1) : word;
  }
  let stem: string | undefined;
  if (word.endsWith("ed") && word.length > 2 && hasVowel(word.slice(0, -2))) stem = word.slice(0, -2);
  else if (word.endsWith("ing") && word.length > 3 && hasVowel(word.slice(0, -3))) stem = word.slice(0, -3);
  if (stem === undefined) return word;
  if (stem.endsWith("at") || stem.endsWith("bl") || stem.endsWith("iz")) return `${stem}e`;
  const last = stem[stem.length - 1] as string;
  if (
    stem.length > 1 &&
    last === stem[stem.length - 2] &&
    !isVowel(last, false) &&
    last !== "l" &&
    last !== "s" &&
    last !== "z"
  )
    return stem.slice(0, -1);
  if (measureIs1(stem) && endsCvc(stem)) return `${stem}e`;
  return stem;
}

/** FTS5's porter token for `word` (a run of ASCII letters and digits), or undefined for any other word. */
export function porterToken(word: string): string | undefined {
  if (!/^[A-Za-z0-9]+$/.test(word)) return undefined;
  let w = word.toLowerCase();
  if (w.length < 3 || w.length > MAX_TOKEN) return w;
  w = step1b(step1a(w));
  if (w.endsWith("y") && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;
  w = step(w, STEP2, measureAbove0);
  w = step(w, STEP3, measureAbove0);
  // "-ion" goes only after an s or a t.
  w = step(w, STEP4, (stem, suffix) => measureAbove1(stem) && (suffix !== "ion" || /[st]$/.test(stem)));
  if (w.endsWith("e")) {
    const stem = w.slice(0, -1);
    if (measureAbove1(stem) || (measureIs1(stem) && !endsCvc(stem))) w = stem;
  }
  if (w.length > 1 && w.endsWith("ll") && measureAbove1(w.slice(0, -1))) w = w.slice(0, -1);
  return w;
}
