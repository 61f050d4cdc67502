import { splitSentences } from "./sentences";
import { contentWords } from "./text";
import { figures, moneyAmounts } from "./values";

/**
 * Figures the assistant works out and later works out again. "Roughly $703 a month" on the first
 * price, then, once the price changed, "comes to about $636 a month": the second is the same
 * quantity recomputed, and the first is no longer true. An assistant turn is no evidence of state of
 * its own, but its own earlier result is only as good as its own later one, so the later retires it.
 *
 * Evidence must be specific, since the assistant names many rates in passing:
 * - the figure is an approximate or computed result ("about", "roughly", "comes to", "works out to")
 *   of an amount per unit of time or per head ("a month", "per guest"), or the unit comes first
 *   ("the monthly payment comes to about $636");
 * - a difference is another quantity ("saves $3,500, about $67 a month", "$40 a week cheaper");
 * - both turns are short (an echo's length: a long answer is masked where it quotes a dead claim, never
 *   dropped whole);
 * - the two turns are about the same thing: they share another figure ("5.4%", "60 months") or two
 *   content words beside the rate;
 * - a turn naming two such figures per the same unit is a comparison, not a result, and counts for
 *   nothing; a hypothetical turn's result replaces nothing and is replaced by nothing.
 */
const RUNNING =
  /\b(?:roughly|about|around|approximately|approx\.?|comes?\s+(?:out\s+)?to|came\s+(?:out\s+)?to|works?\s+out\s+(?:to|at)|worked\s+out\s+(?:to|at)|totals?|totaling|totalling)\s+(?:about\s+|around\s+|roughly\s+|approximately\s+)?(([$\u20ac\u00a3]\s?\d[\d,]*(?:\.\d+)?k?)\s*(?:\/\s*|(?:a|an|per|each)\s+)(month|mo|week|wk|year|yr|day|night|hour|hr|person|head|guest|seat|user))\b/gi;
/** The unit said first: "your monthly payment comes to about $636", "the nightly rate is roughly $210". */
const RUNNING_UNIT_FIRST =
  /\b((monthly|weekly|yearly|annual|nightly|daily|hourly)\b[^.;!?$\u20ac\u00a3]{0,40}?\b(?:is|be|comes?\s+(?:out\s+)?to|works?\s+out\s+to|runs?|of)\s+(?:about\s+|roughly\s+|around\s+|approximately\s+)?([$\u20ac\u00a3]\s?\d[\d,]*(?:\.\d+)?k?))(?![\d,])/gi;
const ADVERB_UNIT: Record<string, string> = {
  monthly: "month",
  weekly: "week",
  yearly: "year",
  annual: "year",
  nightly: "night",
  daily: "day",
  hourly: "hour",
};
const DIFFERENCE =
  /\b(?:sav(?:e|es|ed|ing|ings)|cheaper|pricier|less|more|extra|difference|discount|off|lower|higher|increase|decrease|drop|knock(?:s|ed)?)\b/i;
const UNIT: Record<string, string> = { mo: "month", wk: "week", yr: "year", hr: "hour", head: "person" };

interface Result {
  amount: string;
  /** The result as the turn wrote it ("$703 a month"): what is retired, as a bare "$703" is too short to mask. */
  phrase: string;
  figures: Set<string>;
  words: Set<string>;
}

/** The per-unit results one assistant turn works out: unit → amount and phrase, the ambiguous units left out. */
function resultsIn(text: string): Map<string, { amount: string; phrase: string }> {
  const seen = new Map<string, { amount: string; phrase: string } | null>();
  for (const sentence of splitSentences(text)) {
    const difference = DIFFERENCE.test(sentence);
    const found = [
      ...[...sentence.matchAll(RUNNING)].map((m) => ({ phrase: m[1], amount: m[2], unit: m[3] })),
      ...[...sentence.matchAll(RUNNING_UNIT_FIRST)].map((m) => ({
        phrase: m[1],
        amount: m[3],
        unit: ADVERB_UNIT[(m[2] ?? "").toLowerCase()],
      })),
    ];
    for (const m of found) {
      const rawUnit = (m.unit ?? "").toLowerCase();
      const unit = UNIT[rawUnit] ?? rawUnit;
      const amount = moneyAmounts(m.amount ?? "")[0];
      if (!amount || !unit) continue;
      // A difference is its own quantity, and it makes the unit ambiguous in this turn.
      const other = seen.get(unit);
      if (difference || other === null || (other && other.amount !== amount)) seen.set(unit, null);
      else seen.set(unit, { amount, phrase: m.phrase ?? amount });
    }
  }
  const out = new Map<string, { amount: string; phrase: string }>();
  for (const [unit, result] of seen) if (result) out.set(unit, result);
  return out;
}

export class RunningFigures {
  private readonly last = new Map<string, Result>();

  /**
   * Reads a short assistant turn; returns the phrases of earlier results it recomputes (to be
   * retired). `supposed`: the turn speaks inside a hypothetical or draft scope.
   */
  read(text: string, supposed: boolean): string[] {
    const results = resultsIn(text);
    if (!results.size || supposed) return [];
    const retired: string[] = [];
    for (const [unit, { amount, phrase }] of results) {
      const own = new Set(figures(text).filter((f) => f !== amount));
      const words = new Set(contentWords(text));
      const before = this.last.get(unit);
      if (before && before.amount !== amount && sameSubject(before, own, words)) retired.push(before.phrase);
      this.last.set(unit, { amount, phrase, figures: own, words });
    }
    return retired;
  }
}

/** The earlier result is about the same thing: another figure in common, or two content words. */
function sameSubject(before: Result, figuresNow: Set<string>, wordsNow: Set<string>): boolean {
  if ([...figuresNow].some((f) => before.figures.has(f) && f !== before.amount)) return true;
  const rate = /^(?:month|mo|week|year|day|night|hour|person|head|guest|seat|user|roughly|about|around)s?$/;
  return [...wordsNow].filter((w) => before.words.has(w) && !rate.test(w)).length >= 2;
}
