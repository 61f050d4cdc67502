import murmurhash from "murmurhash";
import type { Embedder } from "../ports/embedder";

/**
 * The offline default Embedder: lexical feature hashing. Deterministic (same text, same vector, on every
 * machine and release of this file, within one JavaScript engine: a count's weight takes `Math.log`,
 * which engines may round differently, as workerd's and Node 22's do for ln 3 by one last bit), no model
 * download, no network, plain JavaScript, linear in the text's length (about 0.1 ms for a ten-word
 * sentence).
 *
 * How a text becomes a vector:
 *  1. Normalise: Unicode NFKD, diacritics removed, lower-cased, apostrophes dropped ("don't" = "dont");
 *     words are maximal runs of letters and digits.
 *  2. Light stemming: plural -s/-es/-ies, -ly, -ation, -ing, -ed, a final -e, and a doubled final
 *     consonant are stripped, so "cache", "caches", "cached", "caching" all become "cach" and
 *     "migrate", "migrated", "migration" become "migrat".
 *  3. Three feature groups, each hashed into the same `dimensions` slots:
 *     - word unigrams (stems); a short list of English function words ("the", "for", "of", ...),
 *       left unstemmed, keeps only a fifth of the weight, so it cannot dominate, but a text made of
 *       them still embeds;
 *     - word bigrams of consecutive content stems (function words skipped), capturing word order;
 *     - character trigrams of each content stem padded with boundary marks ("<ca", "cac", "ach",
 *       "ch>"), capturing partial words and typos.
 *     Counts are weighted sublinearly (1 + ln tf). Each group is scaled to unit length, then weighted
 *     (unigrams 0.4, bigrams 0.1, trigrams 0.5, as shares of the squared norm), so the cosine of two
 *     texts is close to 0.4 × unigram cosine + 0.1 × bigram cosine + 0.5 × trigram cosine.
 *  4. Signed hashing: each feature is hashed once (MurmurHash3 x86-32 of its UTF-8 bytes, the
 *     `murmurhash` package), and three slots and three signs are derived from that hash by integer mixing; the
 *     feature's weight is split evenly (÷√3) over its three slots, each with its own sign. Signs make
 *     collisions cancel on average instead of adding up; three slots keep a single unlucky collision
 *     from dominating the score of two short texts. The vector is finally scaled to unit L2 norm.
 *
 * What it can match: shared words ("Use Redis for caching" / "Use Redis for the cache layer" score
 * about 0.8), inflections ("migrate"/"migrating"/"migration"), typos and partial words through the
 * character trigrams ("Use Reddis for cachng" / "Use Redis for caching" about 0.5), and word order
 * through bigrams, weakly by design ("redis cache" / "cache redis" still score about 0.9).
 *
 * What it cannot match: synonyms without shared surface form ("car"/"automobile", "DB"/"database"),
 * paraphrase ("postpone the launch" / "delay the release"), negation beyond the presence of the word
 * "not", and anything across languages. Texts sharing no words and no trigrams score near 0: hash
 * collisions add noise with a standard deviation of about 1/√dimensions (0.05 at 384). For semantic
 * matching use the Workers AI adapter; vectors of the two are not comparable.
 *
 * A blank text (no letters or digits) embeds as the zero vector.
 */
export interface HashingEmbedderOptions {
  /** Vector length; 384 by default (the size of bge-small, so the index shape stays familiar). */
  dimensions?: number;
}

const DEFAULT_DIMENSIONS = 384;
/** Bump when any step above changes, so vectors of two versions are never compared. */
const VERSION = 1;

const GROUP_SHARES = { unigram: 0.4, bigram: 0.1, trigram: 0.5 } as const;
const FUNCTION_WORD_WEIGHT = 0.2;
const SEED = 0x5eed_0001;
/** Slots per feature: spreading a feature thinly makes collision noise less lumpy for short texts. */
const PROBES = 3;
const GOLDEN = 0x9e3779b9;

/** English function words; "not" and "no" are deliberately absent, as they change meaning. */
const FUNCTION_WORDS = new Set(
  (
    "a an the and or but if then than so as of to in on at by for with from into onto over under about " +
    "is are was were be been being am it its this that these those there here i you he she we they me " +
    "him her us them my your our their his hers ours theirs do does did has have had can could will " +
    "would shall should may might must also just only such what which who whom whose when where why " +
    "how all any each some other same own very too let lets"
  ).split(" "),
);

export class HashingEmbedder implements Embedder {
  readonly name: string;
  readonly dimensions: number;

  constructor(options: HashingEmbedderOptions = {}) {
    const dimensions = options.dimensions ?? DEFAULT_DIMENSIONS;
    if (!Number.isInteger(dimensions) || dimensions < 16) {
      throw new RangeError(`HashingEmbedder needs an integer dimension of at least 16, got ${dimensions}`);
    }
    this.dimensions = dimensions;
    this.name = `hashing-v${VERSION}-${dimensions}`;
  }

  async embed(texts: string[]): Promise<number[][]> {
    return texts.map((text) => this.embedOne(text));
  }

  /** The synchronous core, for callers that need no promise. */
  embedOne(text: string): number[] {
    const words = tokenize(text);
    const vector = new Float64Array(this.dimensions);
    if (words.length === 0) return Array.from(vector);

    const unigrams = new Map<string, number>();
    const bigrams = new Map<string, number>();
    const trigrams = new Map<string, number>();
    const content: string[] = [];
    for (const word of words) {
      if (FUNCTION_WORDS.has(word)) {
        add(unigrams, word);
        continue;
      }
      const stemmed = stem(word);
      add(unigrams, stemmed);
      content.push(stemmed);
      const padded = `<${stemmed}>`;
      for (let i = 0; i + 3 <= padded.length; i++) add(trigrams, padded.slice(i, i + 3));
    }
    for (let i = 1; i < content.length; i++) add(bigrams, `${content[i - 1]} ${content[i]}`);

    this.accumulate(vector, "w", unigrams, GROUP_SHARES.unigram, (feature) =>
      FUNCTION_WORDS.has(feature) ? FUNCTION_WORD_WEIGHT : 1,
    );
    this.accumulate(vector, "b", bigrams, GROUP_SHARES.bigram);
    this.accumulate(vector, "c", trigrams, GROUP_SHARES.trigram);

    let norm = 0;
    for (const v of vector) norm += v * v;
    norm = Math.sqrt(norm);
    const unit = new Array<number>(vector.length);
    for (let i = 0; i < vector.length; i++) unit[i] = norm > 0 ? (vector[i] as number) / norm : 0;
    return unit;
  }

  /** Adds one feature group, scaled to length √share, at its hashed slots with hashed signs. */
  private accumulate(
    vector: Float64Array,
    prefix: string,
    counts: Map<string, number>,
    share: number,
    baseWeight: (feature: string) => number = () => 1,
  ): void {
    if (counts.size === 0) return;
    const weights: [string, number][] = [];
    let squared = 0;
    for (const [feature, tf] of counts) {
      const weight = baseWeight(feature) * (1 + Math.log(tf));
      weights.push([feature, weight]);
      squared += weight * weight;
    }
    const scale = Math.sqrt(share / squared / PROBES);
    for (const [feature, weight] of weights) {
      const hash = featureHash(`${prefix}:${feature}`);
      for (let probe = 0; probe < PROBES; probe++) {
        const slot = mix(hash + (2 * probe + 1) * GOLDEN) % this.dimensions;
        const sign = mix(hash + (2 * probe + 2) * GOLDEN) & 1 ? 1 : -1;
        vector[slot] = (vector[slot] as number) + sign * weight * scale;
      }
    }
  }
}

const UTF8 = new TextEncoder();

/**
 * Feature hashes already computed, isolate-wide, emptied when full. Texts share most of their features
 * (a language's common words and trigrams), and encoding a feature to UTF-8 and hashing it was a third
 * of the embedder's time: with the memo, embedding bench:scale's filler turns takes 28–46 µs a text in
 * Node instead of 108–150, and LoCoMo's and BEAM's turns 309–485 instead of 503–571. About 2 MB at most.
 */
const FEATURE_HASHES_HELD = 20_000;
const featureHashes = new Map<string, number>();

/** MurmurHash3 x86-32 of the feature's UTF-8 bytes, as step 4 above takes it. */
function featureHash(feature: string): number {
  let hash = featureHashes.get(feature);
  if (hash === undefined) {
    hash = murmurhash.v3(UTF8.encode(feature), SEED);
    if (featureHashes.size >= FEATURE_HASHES_HELD) featureHashes.clear();
    featureHashes.set(feature, hash);
  }
  return hash;
}

function add(counts: Map<string, number>, feature: string): void {
  counts.set(feature, (counts.get(feature) ?? 0) + 1);
}

/** Lower-cased words: runs of letters and digits after folding diacritics and dropping apostrophes. */
export function tokenize(text: string): string[] {
  const folded = text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/['’`]/g, "");
  return folded.match(/[\p{L}\p{N}]+/gu) ?? [];
}

const VOWEL = /[aeiouy]/;
const UNDOUBLED = new Set(["l", "s", "z"]);

/**
 * A deliberately light English stemmer (a handful of suffix rules, no dictionary). It aims at
 * conflating the common inflections of the same word, not at linguistic accuracy: over-stemming a
 * rare word only costs a little precision, and the character trigrams still separate most words.
 */
export function stem(word: string): string {
  if (word.length <= 3 || /^\d/.test(word)) return word;
  let w = word;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is")) w = w.slice(0, -1);

  if (w.endsWith("ly") && w.length - 2 >= 4) w = w.slice(0, -2);
  if (w.endsWith("ation") && w.length - 5 >= 3) w = `${w.slice(0, -5)}at`;

  for (const suffix of ["ing", "ed"]) {
    if (!w.endsWith(suffix) || w.endsWith("eed")) continue;
    const rest = w.slice(0, -suffix.length);
    if (rest.length < 3 || !VOWEL.test(rest)) break;
    w = rest;
    const last = w.at(-1) as string;
    if (last === w.at(-2) && !VOWEL.test(last) && !UNDOUBLED.has(last)) w = w.slice(0, -1);
    break;
  }

  if (w.length > 3 && w.endsWith("e") && !w.endsWith("ee")) w = w.slice(0, -1);
  return w;
}

/** MurmurHash3's 32-bit finaliser: a bijective avalanche mix of an integer, unsigned result. */
function mix(value: number): number {
  let h = value | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
