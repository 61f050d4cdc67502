import { type BoundedMap, perList } from "../cache/memo-tables";
import type { DeadClaim } from "./dead-claim";

/** An amount of money ("$25,000", "€1.5m", "$500k") and a share ("15%"): the compiler's one reading of each. */
const MONEY_SOURCE = String.raw`[$€£¥]\s?\d[\d,]*(?:\.\d+)?(?:\s?[kmb]\b)?`;
const PERCENT_SOURCE = String.raw`\b\d+(?:\.\d+)?\s?%`;
export const MONEY_FIGURE = new RegExp(MONEY_SOURCE, "gi");
export const PERCENT_FIGURE = new RegExp(PERCENT_SOURCE, "gi");
const FIGURE = new RegExp(`${MONEY_SOURCE}|${PERCENT_SOURCE}`, "gi");

const SCALE: Readonly<Record<string, number>> = { k: 1e3, m: 1e6, b: 1e9 };

/** The number a figure states: "$25,000" 25000, "$1.5m" 1500000, "15 %" 15. */
export function figureNumber(figure: string): number {
  const m = /(\d[\d,]*(?:\.\d+)?)\s?([kmb])?/i.exec(figure);
  if (!m) return Number.NaN;
  return Number((m[1] as string).replace(/,/g, "")) * (SCALE[(m[2] ?? "").toLowerCase()] ?? 1);
}
export const ASIDE = /\s*\([^()]*\)/g;
/**
 * Every figure holds a currency sign or a percent sign, and masking or dropping asides only takes
 * characters away: text without one of those signs has no figures, before or after either. (A digit
 * alone is no sign of one: most claims carry ids and dates.)
 */
export const FIGURE_PRESENT = /[$€£¥%]/;

/** The memo tables this file reads (CompilerMemos holds them). */
export interface FigureMemos {
  /**
   * A text's figures, remembered per text: a new turn settles thousands of claims again, nearly all of
   * them seen last turn. The arrays are shared: read them only.
   */
  figures: BoundedMap<string, readonly string[]>;
  /** The dead figures of a claim list, gathered once per list: maskClaims runs for every compiled line. */
  deadFigures: WeakMap<DeadClaim[], Set<string>>;
}

export function figuresOf(text: string, memos: FigureMemos): readonly string[] {
  let found = memos.figures.get(text);
  if (found === undefined) {
    found = memos.figures.remember(
      text,
      [...text.matchAll(FIGURE)].map((m) => m[0].toLowerCase().replace(/\s+/g, "")),
    );
  }
  return found;
}

/** The dead figures of a claim list. */
export function deadFiguresOf(claims: DeadClaim[], memos: FigureMemos): Set<string> {
  return perList(memos.deadFigures, claims, () => new Set(claims.flatMap((c) => c.figures)));
}
