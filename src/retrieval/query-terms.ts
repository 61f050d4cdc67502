/**
 * Turns free text into an FTS5 MATCH expression that cannot fail to parse. Terms are maximal runs of
 * Unicode letters and digits, so no FTS5 syntax character (quotes, parentheses, `*`, `^`, `:`, `-`) can
 * reach the expression; each is double-quoted, so operator words (AND, OR, NOT, NEAR) are plain strings;
 * they are OR-ed so that bm25 ranks by how many and how rare the matched terms are.
 */
const STOPWORDS = new Set(
  (
    "a an the and or but if then than so as of to in on at by for with from into about is are was were be " +
    "been being am it its this that these those there here i you he she we they me him her us them my your " +
    "our their his hers do does did done has have had can could will would shall should may might must " +
    "what which who whom whose when where why how all any some just also very too not no yes did s t"
  ).split(" "),
);

/** How many terms at most: long queries are cut, the rest adds cost and little ranking signal. */
export const MAX_QUERY_TERMS = 32;

export function queryTerms(query: string, maxTerms = MAX_QUERY_TERMS): string[] {
  const words = (
    query
      .normalize("NFKC")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  ).filter((w) => w.length > 0);
  const content = words.filter((w) => !STOPWORDS.has(w));
  // A question made only of function words still has something to search for.
  const chosen = content.length > 0 ? content : words;
  return [...new Set(chosen)].slice(0, maxTerms);
}

/** The MATCH expression for any of `terms` (queryTerms' runs of letters and digits), each quoted. */
export function matchExpression(terms: readonly string[]): string {
  return quotedPhrases(terms).join(" OR ");
}

/** matchExpression's phrases, in its order: each term quoted (held-bm25.ts ranks by them). */
export function quotedPhrases(terms: readonly string[]): string[] {
  return terms.map((t) => `"${t}"`);
}

/**
 * matchExpression over each term in every form the porter tokenizer needs to find its other forms
 * (porterForms): the fact search's. A current fact outside the newest versions is found by its words or
 * not at all, so "deploy" must find "scheduled_deployment_window". The message search keeps to the words
 * as said: it fuses the vector index's ranking and the turns around each hit, and the added forms moved
 * its bm25 order for the worse on BEAM (evidence recall @8k 0.733 → 0.729).
 */
export function matchAnyForm(terms: readonly string[]): string {
  return anyFormPhrases(terms).join(" OR ");
}

/** matchAnyForm's phrases, in its order: each form of each term once, quoted. */
export function anyFormPhrases(terms: readonly string[]): string[] {
  return quotedPhrases([...new Set(terms.flatMap(porterForms))]);
}

/**
 * FTS5's porter tokenizer stems a word ending in a vowel and "y" one way on its own and another under a
 * suffix: step 1c turns the final "y" into "i" ("deploy", "deploys", "deployed" → "deploi"), while step
 * 4 strips "ment", "er" … after it, leaving the "y" ("deployment", "deployer" → "deploy"). A search for
 * "deploy" would never find "the deployment window", nor one for "employer" "she employs". Such a term
 * is searched for in both forms: with a suffix when it has none, without it when it has one (where the
 * suffix would not be stripped, as in "payment", the added form is a word of its own, or of none).
 */
export function porterForms(term: string): string[] {
  const derived = /^(.*[aeiou]y)(?:ments?|ers?|ors?|able|al|ances?)$/.exec(term);
  if (derived) return [term, derived[1] as string];
  const plain = /^(.*[aeiou]y)(?:s|ed|ing)?$/.exec(term);
  if (plain) return [term, `${plain[1]}ment`];
  return [term];
}

/**
 * How many matching rows (facts, messages) the terms of one search may bring to bm25 ranking. FTS5
 * ranks at about a microsecond per matching row (bm25 reads each one's length), so a word found in a
 * third of a 1,000,000-fact project would cost a third of a second; counting stops past this, and the
 * ranking keeps to the rarer terms. A search over fewer rows than this needs no counting and drops no
 * term (the thread's message search skips it; a project's fact search reads a small project whole).
 */
export const RANKED_MATCH_BUDGET = 5_000;

/**
 * The terms worth ranking by bm25, rarest first, while their matches together stay within the budget:
 * the rarer a term, the more its matches weigh in bm25, so a common word dropped here changes the order
 * of what it alone would add. `counts` are each term's matches, counted up to the budget plus one. When
 * even the rarest term passes the budget, none is ranked: the search takes the newest matches instead
 * (`newest`), a cost bounded by the limit; callers report the cut.
 */
export function rankedTerms(
  terms: readonly string[],
  counts: readonly number[],
): { ranked: string[]; dropped: number; newest: boolean } {
  const byRarity = terms
    .map((term, i) => ({ term, count: counts[i] ?? 0 }))
    .filter((t) => t.count > 0)
    .sort((a, b) => a.count - b.count || (a.term < b.term ? -1 : 1));
  const ranked: string[] = [];
  let total = 0;
  for (const { term, count } of byRarity) {
    if (total + count > RANKED_MATCH_BUDGET) break;
    ranked.push(term);
    total += count;
  }
  if (ranked.length === 0 && byRarity.length > 0) {
    return { ranked: byRarity.map((t) => t.term), dropped: 0, newest: true };
  }
  return { ranked, dropped: byRarity.length - ranked.length, newest: false };
}

/**
 * rankedTerms over counts known only within bounds (a count taken before some writes, which can have
 * added or removed at most so many matches since): the choice, when every count within the bounds makes
 * the same one (the same terms ranked, the same number dropped, `newest` alike); otherwise the terms
 * whose exact count would settle it. Each term's presence must be certain (its low bound above 0, or its
 * high bound 0). Then, when the present terms' high bounds together stay within the budget, every one
 * is ranked whatever the counts (the order they rank in is the caller's to make independent of them).
 * Past it, the budget cuts the terms in their order of rarity, so that order must be certain (their
 * bounds do not overlap, ties going by the term as rankedTerms breaks them) and the cut fall at the same
 * place at both ends: a larger count only ever shortens the ranked run, so any count between cuts it there.
 */
export function rankedTermsWithin(
  terms: readonly string[],
  low: readonly number[],
  high: readonly number[],
): { choice: ReturnType<typeof rankedTerms> } | { recount: string[] } {
  const bounds = terms.map((term, i) => ({ term, low: low[i] ?? 0, high: high[i] ?? 0 }));
  const unsure = new Set<string>();
  for (const b of bounds) if (b.low === 0 && b.high > 0) unsure.add(b.term);
  if (unsure.size > 0) return { recount: [...unsure] };
  const present = bounds.filter((b) => b.low > 0);
  if (present.reduce((sum, b) => sum + b.high, 0) <= RANKED_MATCH_BUDGET) {
    return { choice: rankedTerms(terms, low) };
  }
  const before = (a: (typeof bounds)[0], b: (typeof bounds)[0]) =>
    a.high < b.low || (a.high === b.low && a.term < b.term);
  for (let i = 0; i < present.length; i++) {
    for (let j = i + 1; j < present.length; j++) {
      const a = present[i] as (typeof bounds)[0];
      const b = present[j] as (typeof bounds)[0];
      if (a.term === b.term || before(a, b) || before(b, a)) continue;
      for (const x of [a, b]) if (x.low !== x.high) unsure.add(x.term);
    }
  }
  if (unsure.size === 0) {
    const least = rankedTerms(terms, low);
    const most = rankedTerms(terms, high);
    if (
      least.newest === most.newest &&
      least.dropped === most.dropped &&
      least.ranked.join("\u0000") === most.ranked.join("\u0000")
    ) {
      return { choice: least };
    }
    for (const b of bounds) if (b.low !== b.high) unsure.add(b.term);
  }
  return { recount: [...unsure] };
}
