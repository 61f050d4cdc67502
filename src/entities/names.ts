/**
 * How names compare: one normal form for every spelling of a name (case, accents, punctuation, a
 * leading "the", a company's legal suffix), its words, and its initials. Pure.
 */

/** Legal forms that do not tell companies apart: "Acme Corp" and "ACME, Inc." are one name. */
const LEGAL_SUFFIXES = new Set([
  "inc",
  "incorporated",
  "corp",
  "corporation",
  "ltd",
  "limited",
  "llc",
  "plc",
  "gmbh",
  "ag",
  "sa",
  "co",
]);

const LEADING_WORDS = new Set(["the", "our", "my", "your", "their", "his", "her", "a", "an"]);

/** Words left out of initials: "Bank of England" is BoE, "BE" in the letters that count. */
const CONNECTIVES = new Set(["of", "and", "the", "for", "de", "du", "van", "von", "der", "da", "di"]);

/**
 * The normal form of a name: lower case, accents and punctuation dropped ("&" reads "and"), white space
 * folded, a leading determiner and a trailing legal suffix dropped when other words remain.
 */
export function normalizeName(text: string): string {
  let normal = normalized.get(text);
  if (normal === undefined) {
    normal = normalize(text);
    // Emptied when full: a name is cheap to normalise again, and the table stays bounded.
    if (normalized.size >= NORMALIZED_LIMIT) normalized.clear();
    normalized.set(text, normal);
  }
  return normal;
}

/**
 * Normal forms already worked out, by text: resolving a batch of 500 facts normalises the same few
 * names thousands of times (each mention's names, for every candidate it is scored against).
 */
const normalized = new Map<string, string>();
const NORMALIZED_LIMIT = 10_000;

function normalize(text: string): string {
  const words = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/&/g, " and ")
    .replace(/['’]s\b/g, "")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()
    .split(" ")
    .filter(Boolean);
  while (words.length > 1 && LEADING_WORDS.has(words[0] as string)) words.shift();
  while (words.length > 1 && LEGAL_SUFFIXES.has(words.at(-1) as string)) words.pop();
  return words.join(" ");
}

export const nameWords = (normal: string): string[] => (normal ? normal.split(" ") : []);

/**
 * The initials a name is abbreviated to: "amazon web services" → "aws", "bank of england" → "be". A
 * single word of two to six letters is its own abbreviation ("aws"), so the two forms meet.
 */
export function initialsOf(normal: string): string | undefined {
  const words = nameWords(normal);
  if (words.length === 1) {
    const word = words[0] as string;
    return /^[a-z]{2,6}$/.test(word) ? word : undefined;
  }
  const significant = words.filter((w) => !CONNECTIVES.has(w));
  if (significant.length < 2) return undefined;
  return significant.map((w) => w[0]).join("");
}

/** Levenshtein distance, bounded: past `max` it stops and answers `max + 1`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(
        (previous[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      row.push(value);
      if (value < best) best = value;
    }
    if (best > max) return max + 1;
    previous = row;
  }
  return previous[b.length] as number;
}
