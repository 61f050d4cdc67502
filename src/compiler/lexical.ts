/**
 * Lexical relevance: BM25 over the candidates of one compile. Terms are lower-cased words with common
 * English suffixes folded and stop words dropped, so "approved" meets "approval" and "budgets" "budget".
 */
const STOP_WORDS = new Set(
  (
    "a an and are as at be been but by can could did do does for from had has have how i if in into is it its " +
    "me my no not of on or our should so than that the their them then there these they this to us was we " +
    "were what when where which who why will with would you your about any all also just let lets s"
  ).split(" "),
);

function stem(word: string): string {
  if (word.length <= 4) return word;
  for (const suffix of [
    "ations",
    "ation",
    "ments",
    "ment",
    "ings",
    "ing",
    "ies",
    "ied",
    "ed",
    "es",
    "ly",
    "s",
  ]) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) {
      const base = word.slice(0, -suffix.length);
      return suffix === "ies" || suffix === "ied" ? `${base}y` : base;
    }
  }
  return word;
}

/**
 * A warm thread object compiles the same stored lines again and again; their terms are remembered
 * rather than re-tokenized on every query, with how often each occurs. Bounded, and simply emptied
 * when full.
 */
const MEMO_LIMIT = 20_000;
const memo = new Map<string, Document>();

interface Document {
  terms: string[];
  frequency: Map<string, number>;
}

function documentOf(text: string): Document {
  let found = memo.get(text);
  if (!found) {
    if (memo.size >= MEMO_LIMIT) memo.clear();
    const list = terms(text);
    const frequency = new Map<string, number>();
    for (const term of list) frequency.set(term, (frequency.get(term) ?? 0) + 1);
    found = { terms: list, frequency };
    memo.set(text, found);
  }
  return found;
}

const TERM = /[a-z0-9$%]+(?:[.,][0-9]+)*/g;

export function terms(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.toLowerCase().match(TERM) ?? []) {
    if (STOP_WORDS.has(raw)) continue;
    out.push(stem(raw));
  }
  return out;
}

/**
 * Only the query's terms are looked up in each document, so a compile's cost is documents × query
 * terms, with each document's term counts taken once per distinct text.
 */
export function bm25Scores(query: string, documents: string[], k1 = 1.2, b = 0.75): number[] {
  const queryTerms = [...new Set(terms(query))];
  if (queryTerms.length === 0 || documents.length === 0) return documents.map(() => 0);
  const docs = documents.map(documentOf);
  let totalLength = 0;
  for (const doc of docs) totalLength += doc.terms.length;
  const avgLength = totalLength / documents.length || 1;
  // Index loops: this runs for every candidate of every compile, and entry iterators allocate.
  const documentFrequency = queryTerms.map(() => 0);
  for (const doc of docs) {
    for (let q = 0; q < queryTerms.length; q++) {
      if (doc.frequency.has(queryTerms[q] as string)) documentFrequency[q] = (documentFrequency[q] ?? 0) + 1;
    }
  }
  const scores = new Array<number>(docs.length);
  for (let d = 0; d < docs.length; d++) {
    const doc = docs[d] as Document;
    let score = 0;
    for (let q = 0; q < queryTerms.length; q++) {
      const tf = doc.frequency.get(queryTerms[q] as string);
      if (!tf) continue;
      const df = documentFrequency[q] ?? 0;
      const idf = Math.log(1 + (documents.length - df + 0.5) / (df + 0.5));
      score += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * doc.terms.length) / avgLength));
    }
    scores[d] = score;
  }
  return scores;
}
