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

/** The MATCH expression for a query, or null when it holds no searchable term. */
export function ftsMatchExpression(query: string): string | null {
  const terms = queryTerms(query);
  return terms.length ? terms.map((t) => `"${t}"`).join(" OR ") : null;
}
