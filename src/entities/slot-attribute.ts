/**
 * The attribute half of a slot (entity plus attribute), in one canonical form for every caller: the
 * write path's entity resolution (fact-entities.ts) and the offline extractor's key matching
 * (src/extraction/rules/slot-registry.ts) compare attributes through this function and nothing else.
 *
 * Two wordings are one attribute when their words are the same once each is put in its canonical
 * form: plurals are singular, and the words naming an upper bound ("ceiling", "cap", "limit",
 * "maximum") are one word, as are those naming a lower bound. "max_rent", "rent_cap" and "rent ceiling"
 * are one attribute, and so are a compound and its parts ("pickup" and "pick up", "check-in" and
 * "checkin"); "rent" and "rent_cap" are not (a rent is not its ceiling), and neither are
 * "hotel_cap" and "food_cap".
 */

const UPPER = new Set(["max", "maximum", "ceiling", "cap", "limit", "upper"]);
const LOWER = new Set(["min", "minimum", "floor"]);

/** A plural noun's singular ("priorities" → "priority", "tiles" → "tile"; "status", "analytics" kept). */
export function singular(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith("s") && !/(?:ss|us|is|ics)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** One word of an attribute in canonical form. */
export function attributeWord(word: string): string {
  const w = word.toLowerCase();
  if (UPPER.has(w)) return "max";
  if (LOWER.has(w)) return "min";
  return singular(w);
}

/** Whether the attribute word names a bound (an upper or lower limit) rather than a thing. */
export const isBoundWord = (word: string) => {
  const w = attributeWord(word);
  return w === "max" || w === "min";
};

/** The canonical attribute of these words: canonical words, each once, sorted; "" for none. */
export function canonicalAttribute(words: readonly string[]): string {
  return [...new Set(words.map(attributeWord))].sort().join("_");
}

/** The same words run together, for a compound written as one word or two ("pickup", "pick_up"). */
export function compactAttribute(words: readonly string[]): string {
  return words.map(attributeWord).join("");
}

/** Whether two wordings name one attribute (canonicalAttribute or compactAttribute agree). */
export function sameAttribute(a: readonly string[], b: readonly string[]): boolean {
  return canonicalAttribute(a) === canonicalAttribute(b) || compactAttribute(a) === compactAttribute(b);
}
