import { claimAt, groupsIn, indexOf } from "./claim-index";
import type { DeadClaim } from "./dead-claim";
import { ASIDE, deadFiguresOf, figuresOf } from "./figures";
import { maskedTextsOf, type SuccessionMemos } from "./succession";

/** The memo tables this file reads (CompilerMemos holds them). */
export type MaskMemos = SuccessionMemos;

export const MASK = "[superseded]";

/**
 * Replaces every quotation of a dead claim inside live text, and drops asides that cite one of its
 * figures: "Only 10% discount applies (25% requires 3-year contract)" once 25% was replaced speaks
 * of the replaced value in other words.
 */
export function maskClaims(text: string, claims: DeadClaim[], memos: MaskMemos): string {
  const masked = maskedTextsOf(claims, memos);
  let out = masked.get(text);
  if (out === undefined) {
    out = masked.remember(text, maskedBefore(text, claims, memos) ?? maskWith(text, claims, memos));
  }
  return out;
}

function maskWith(text: string, claims: DeadClaim[], memos: MaskMemos): string {
  // Only claims present in the text, or ones that could straddle an inserted mask (they would contain
  // a bracket; the mask alone holds no space or digit, so no distinctive claim fits inside it). Masking
  // with a claim whose text was masked already changes nothing, so each text is applied once.
  const present = [
    ...groupsIn(text.toLowerCase(), claims, memos).map((g) => g.positions[0] ?? 0),
    ...indexOf(claims, memos).bracketed,
  ];
  let out = text;
  for (const position of present.sort((a, b) => a - b)) {
    const claim = claims[position];
    if (!claim) continue;
    let index = claimAt(out.toLowerCase(), claim.lower);
    while (index !== -1) {
      out = `${out.slice(0, index)}${MASK}${out.slice(index + claim.text.length)}`;
      index = claimAt(out.toLowerCase(), claim.lower, index + MASK.length);
    }
  }
  const deadFigures = deadFiguresOf(claims, memos);
  if (!deadFigures.size) return out;
  return out.replace(ASIDE, (aside) =>
    figuresOf(aside, memos).some((f) => deadFigures.has(f)) ? "" : aside,
  );
}

/** The masked text from the list `claims` follows, when it carries over (see Succession). */
function maskedBefore(text: string, claims: DeadClaim[], memos: MaskMemos): string | undefined {
  const masked = memos.successions.get(claims)?.masked;
  const before = masked?.texts.get(text);
  if (before === undefined || !masked) return undefined;
  if (masked.changed.length) {
    const lower = text.toLowerCase();
    if (masked.changed.some((c) => lower.includes(c))) return undefined;
  }
  return before;
}

/** Whether a masked message still says something beyond its timestamp and speaker. */
export function worthKeeping(maskedLine: string): boolean {
  const body = maskedLine.replace(/^\[[^\]]*\]\s*[^:]*:\s*/, "").replaceAll(MASK, " ");
  return (body.match(/[A-Za-z0-9$%]+/g) ?? []).length >= 4;
}
