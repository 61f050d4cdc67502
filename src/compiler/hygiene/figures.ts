import { type BoundedMap, perList } from "../cache/memo-tables";
import type { DeadClaim } from "./dead-claim";

const FIGURE = /[$€£¥]\s?\d[\d,]*(?:\.\d+)?(?:\s?[kmb]\b)?|\b\d+(?:\.\d+)?\s?%/gi;
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
