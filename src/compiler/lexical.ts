import type { BoundedMap } from "./cache/memo-tables";
import type { ListEdits } from "./list-edits";

/**
 * Lexical relevance: BM25 over the candidates of one compile. Terms are lower-cased words with common
 * English suffixes folded and stop words dropped, so "approved" meets "approves" and "budgets" "budget".
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

/** A text's terms, with how often each occurs. */
export interface Document {
  /** How many terms the text holds (BM25's document length). */
  length: number;
  frequency: Map<string, number>;
}

/** The memo tables this file reads (CompilerMemos holds them). */
export interface LexicalMemos {
  /**
   * A warm thread object compiles the same stored lines again and again; their terms are remembered
   * rather than re-tokenized on every query, with how often each occurs.
   */
  documents: BoundedMap<string, Document>;
}

function documentOf(text: string, memos: LexicalMemos): Document {
  let found = memos.documents.get(text);
  if (!found) {
    const list = terms(text);
    const frequency = new Map<string, number>();
    for (const term of list) frequency.set(term, (frequency.get(term) ?? 0) + 1);
    // The list itself is not kept: BM25 reads its length, and a thread holds thousands of documents.
    found = memos.documents.remember(text, { length: list.length, frequency });
  }
  return found;
}

/** A text's terms with how often each occurs, remembered with the text (the same memo BM25 reads). */
export function termCounts(text: string, memos: LexicalMemos): ReadonlyMap<string, number> {
  return documentOf(text, memos).frequency;
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

/** BM25 scores of each document for the query (an index built for this list alone; see Corpus). */
export function bm25Scores(
  query: string,
  documents: string[],
  memos: LexicalMemos,
  k1 = 1.2,
  b = 0.75,
): number[] {
  return corpusScores(query, corpusOf(documents, memos), k1, b);
}

/**
 * A fixed list of documents, indexed by term: which documents hold it and how often. Scoring a query
 * against it touches only the documents that hold one of the query's terms, where bm25Scores looks up
 * every query term in every document. Worth it where the same list is scored again and again (a warm
 * thread's settled state, query after query); the index is read as immutable.
 */
export interface Corpus {
  lengths: number[];
  avgLength: number;
  postings: Map<string, { docs: number[]; counts: number[] }>;
}

export function corpusOf(documents: readonly string[], memos: LexicalMemos): Corpus {
  const lengths = new Array<number>(documents.length);
  const postings: Corpus["postings"] = new Map();
  let totalLength = 0;
  for (let d = 0; d < documents.length; d++) {
    const doc = documentOf(documents[d] as string, memos);
    lengths[d] = doc.length;
    totalLength += doc.length;
    for (const [term, count] of doc.frequency) {
      const posting = postings.get(term);
      if (posting) {
        posting.docs.push(d);
        posting.counts.push(count);
      } else {
        postings.set(term, { docs: [d], counts: [count] });
      }
    }
  }
  return { lengths, avgLength: totalLength / documents.length || 1, postings };
}

/**
 * corpusOf(documents) from the index of a list it follows by a few edits (src/compiler/list-edits.ts):
 * kept documents keep their lengths and postings under their new index, and only added documents are
 * read. The postings may list documents in another order than corpusOf's, which scoring cannot see: a
 * document is in a term's postings once, so it still gets one addition per query term, in query-term
 * order, and the same lengths and average; the scores are the same to the bit.
 */
export function corpusAfter(
  previous: Corpus,
  edits: ListEdits,
  documents: readonly string[],
  memos: LexicalMemos,
): Corpus {
  const { moved, added } = edits;
  const lengths = new Array<number>(documents.length);
  for (let d = 0; d < moved.length; d++) {
    const to = moved[d] as number;
    if (to >= 0) lengths[to] = previous.lengths[d] as number;
  }
  const postings: Corpus["postings"] = new Map();
  for (const [term, posting] of previous.postings) {
    const docs: number[] = [];
    const counts: number[] = [];
    for (let i = 0; i < posting.docs.length; i++) {
      const to = moved[posting.docs[i] as number] as number;
      if (to >= 0) {
        docs.push(to);
        counts.push(posting.counts[i] as number);
      }
    }
    if (docs.length) postings.set(term, { docs, counts });
  }
  for (const d of added) {
    const doc = documentOf(documents[d] as string, memos);
    lengths[d] = doc.length;
    for (const [term, count] of doc.frequency) {
      const posting = postings.get(term);
      if (posting) {
        posting.docs.push(d);
        posting.counts.push(count);
      } else {
        postings.set(term, { docs: [d], counts: [count] });
      }
    }
  }
  // Integer lengths: their sum, and so the average, does not depend on the order of addition.
  let totalLength = 0;
  for (const length of lengths) totalLength += length;
  return { lengths, avgLength: totalLength / documents.length || 1, postings };
}

/** bm25Scores over an indexed list: the same scores, to the bit (terms are summed in the same order). */
export function corpusScores(query: string, corpus: Corpus, k1 = 1.2, b = 0.75): number[] {
  const size = corpus.lengths.length;
  const scores = new Array<number>(size).fill(0);
  const queryTerms = [...new Set(terms(query))];
  for (const term of queryTerms) {
    const posting = corpus.postings.get(term);
    if (!posting) continue;
    const df = posting.docs.length;
    const idf = Math.log(1 + (size - df + 0.5) / (df + 0.5));
    addWeights(scores, posting, idf, corpus.lengths, corpus.avgLength, k1, b);
  }
  return scores;
}

/**
 * One query term's BM25 weight added to each document that holds it. Every scorer here adds through
 * this one expression, term by term in query-term order, which is what keeps their scores equal to the bit.
 */
function addWeights(
  scores: number[],
  hits: { docs: readonly number[]; counts: readonly number[] },
  idf: number,
  lengths: readonly number[],
  avgLength: number,
  k1: number,
  b: number,
): void {
  for (let i = 0; i < hits.docs.length; i++) {
    const d = hits.docs[i] as number;
    const tf = hits.counts[i] as number;
    scores[d] =
      (scores[d] as number) +
      (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * (lengths[d] as number)) / avgLength));
  }
}

/**
 * corpusScores without building the index: each query term's document frequency and weights are found
 * by looking the term up in every document's own term counts. Cheaper than indexing a list that is
 * scored once (a cold object's first compile of thousands of objects), dearer for a list scored query
 * after query. The same additions in the same order as corpusScores, so the same scores to the bit.
 */
export function directScores(
  query: string,
  documents: readonly string[],
  memos: LexicalMemos,
  k1 = 1.2,
  b = 0.75,
): number[] {
  return prefixedScores(query, undefined, documents, memos, k1, b);
}

/**
 * directScores over a list whose first documents are indexed (`prefix`, the index of exactly those
 * documents in those places), the rest read directly: a large project's candidates start with the
 * same held newest facts compile after compile, followed by the question's own. Each term's weight is
 * added to the prefix's documents from its postings and to the rest's from their term counts, per
 * document in query-term order, with the whole list's document frequency, length and average: the
 * scores of directScores over the whole list, to the bit.
 */
export function prefixedScores(
  query: string,
  prefix: Corpus | undefined,
  documents: readonly string[],
  memos: LexicalMemos,
  k1 = 1.2,
  b = 0.75,
): number[] {
  const size = documents.length;
  const start = prefix ? prefix.lengths.length : 0;
  const queryTerms = [...new Set(terms(query))];
  // One pass over the documents finds every query term's documents and counts, in document order, as
  // the term-by-term scans did: a large project's candidate list is new with every question, so each
  // document is read once rather than twice per term.
  const hits = queryTerms.map(() => ({ docs: [] as number[], counts: [] as number[] }));
  const lengths = new Array<number>(size);
  let totalLength = 0;
  for (let d = 0; d < start; d++) {
    const length = (prefix as Corpus).lengths[d] as number;
    lengths[d] = length;
    totalLength += length;
  }
  for (let d = start; d < size; d++) {
    const doc = documentOf(documents[d] as string, memos);
    lengths[d] = doc.length;
    totalLength += doc.length;
    for (let t = 0; t < queryTerms.length; t++) {
      const tf = doc.frequency.get(queryTerms[t] as string);
      if (tf === undefined) continue;
      const hit = hits[t] as { docs: number[]; counts: number[] };
      hit.docs.push(d);
      hit.counts.push(tf);
    }
  }
  const avgLength = totalLength / size || 1;
  const scores = new Array<number>(size).fill(0);
  for (let t = 0; t < queryTerms.length; t++) {
    const posting = prefix?.postings.get(queryTerms[t] as string);
    const rest = hits[t] as { docs: number[]; counts: number[] };
    const df = (posting ? posting.docs.length : 0) + rest.docs.length;
    if (df === 0) continue;
    const idf = Math.log(1 + (size - df + 0.5) / (df + 0.5));
    if (posting) addWeights(scores, posting, idf, lengths, avgLength, k1, b);
    addWeights(scores, rest, idf, lengths, avgLength, k1, b);
  }
  return scores;
}

/**
 * A list's BM25 scorer that indexes the list only when it is scored a second time: the first query
 * (all a cold object's first compile asks) is scored directly; a warm thread's unchanged list, scored
 * query after query, gets its index from the second on. Either way the scores of corpusScores.
 */
export class LazyCorpus {
  private scored = false;

  /**
   * `corpus`: the list's index when it is already known (carried over from a close list); `prefix`: the
   * index of the list's first documents, when known (read by the first query, see prefixedScores).
   */
  constructor(
    private readonly documents: readonly string[],
    private readonly memos: LexicalMemos,
    private corpus?: Corpus,
    private readonly prefix?: Corpus,
  ) {}

  /** The index, once built; a list carried over from this one reuses it. */
  get index(): Corpus | undefined {
    return this.corpus;
  }

  scores(query: string): number[] {
    if (this.corpus) return corpusScores(query, this.corpus);
    if (!this.scored) {
      this.scored = true;
      return prefixedScores(query, this.prefix, this.documents, this.memos);
    }
    this.corpus = corpusOf(this.documents, this.memos);
    return corpusScores(query, this.corpus);
  }
}
