import { passageSpans } from "../../retrieval/passages";
import type { ContextObject } from "../context-object";
import { terms } from "../lexical";

/**
 * Pass 7, for long messages (issue 16, item 6): the passages of a retrieved message that answer the
 * query, with a pointer to the message, as the form packed when the whole message would take more than
 * its share of the budget. Passages are cut as the transcript's passage index cuts them
 * (src/retrieval/passages.ts), from the text as the gates left it; the ones sharing the query's rarer
 * words are chosen, weighed within the message the way bm25 weighs a term within a corpus.
 */

/** Passages an excerpt shows at most, however large the budget. */
export const EXCERPT_PASSAGES = 3;
/** A passage after the best is shown only when it scores at least this share of the best. */
const SECOND_PASSAGE_SHARE = 0.5;

export interface Excerpt {
  /** The stamp, the pointer and the chosen passages, ready to be packed as a line. */
  text: string;
  /** 1-based positions of the chosen passages, in message order, and how many the message has. */
  parts: number[];
  of: number;
  /** Whether the chosen passages share a word with the query (else the excerpt is the opening passage). */
  matched: boolean;
}

/** A long message's passages with their terms, computed once per object. */
export interface PassageIndex {
  texts: string[];
  terms: Set<string>[];
}

/** The memo table this file reads (CompilerMemos holds it). */
export interface ExcerptMemos {
  passageIndexes: WeakMap<ContextObject, PassageIndex | null>;
}

function passageIndex(o: ContextObject, memos: ExcerptMemos): PassageIndex | null {
  let index = memos.passageIndexes.get(o);
  if (index === undefined) {
    const stamp = o.transcript?.stamp ?? "";
    const body = o.text.startsWith(stamp) ? o.text.slice(stamp.length) : o.text;
    const spans = passageSpans(body);
    if (spans.length < 2) index = null;
    else {
      const texts = spans.map((s) => body.slice(s.start, s.end).trim());
      index = { texts, terms: texts.map((text) => new Set(terms(text))) };
    }
    memos.passageIndexes.set(o, index);
  }
  return index;
}

/**
 * The excerpt of a long message for a query; null for a message short enough to be one passage. A
 * message none of whose passages shares a word with the query (a neighbour kept for its context, a
 * match by meaning) is represented by its opening passage.
 */
export function excerptOf(
  o: ContextObject,
  queryTerms: readonly string[],
  memos: ExcerptMemos,
  maxPassages = 1,
): Excerpt | null {
  const index = passageIndex(o, memos);
  if (!index) return null;
  const n = index.texts.length;
  const wanted = [...new Set(queryTerms)];
  const weight = new Map<string, number>();
  for (const term of wanted) {
    const df = index.terms.reduce((sum, set) => sum + (set.has(term) ? 1 : 0), 0);
    if (df > 0) weight.set(term, Math.log(1 + n / df));
  }
  const scored = index.terms
    .map((set, i) => ({
      i,
      score: wanted.reduce((sum, t) => sum + (set.has(t) ? (weight.get(t) ?? 0) : 0), 0),
    }))
    .filter((p) => p.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i);
  const best = scored[0];
  const chosen = !best
    ? [0]
    : scored
        .slice(0, Math.min(EXCERPT_PASSAGES, Math.max(1, maxPassages)))
        .filter((p) => p.score >= best.score * SECOND_PASSAGE_SHARE)
        .map((p) => p.i)
        .sort((a, b) => a - b);
  const parts = chosen.map((i) => i + 1);
  const pointer = `(excerpt of message ${o.objectId}: part${parts.length > 1 ? "s" : ""} ${parts.join(" and ")} of ${n}) `;
  const text = `${o.transcript?.stamp ?? ""}${pointer}${chosen.map((i) => index.texts[i]).join(" […] ")}`;
  return { text, parts, of: n, matched: best !== undefined };
}
