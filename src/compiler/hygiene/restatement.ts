import type { ContextObject } from "../context-object";
import { terms } from "../lexical";
import type { DeadClaim } from "./dead-claim";
import { FIGURE_PRESENT, figuresOf } from "./figures";
import { type RewordedMemos, replacedFiguresOf, rewordableOf, saysTerm } from "./reworded";
import { firstAfter, quotedVerdictsOf, restatedVerdictsOf, type SuccessionMemos } from "./succession";

/** The memo tables this file reads (CompilerMemos holds them). */
export type RestatementMemos = SuccessionMemos & RewordedMemos;

/** The first claim of the list (longest first) that a text quotes, whenever it was said. */
export function restatedClaim(
  text: string,
  claims: DeadClaim[],
  memos: RestatementMemos,
): DeadClaim | undefined {
  const verdicts = restatedVerdictsOf(claims, memos);
  let verdict = verdicts.get(text);
  if (verdict === undefined) {
    verdict = firstAfter(claims, text, anyClaim, (before) => before.restated.get(text), memos) ?? null;
    verdicts.remember(text, verdict);
  }
  return verdict ?? undefined;
}

const anyClaim = () => true;

function quotedBelieved(message: ContextObject, claims: DeadClaim[], memos: RestatementMemos) {
  const verdicts = quotedVerdictsOf(claims, memos);
  let verdict = verdicts.get(message);
  if (verdict === undefined) {
    const believed = (c: DeadClaim) => c.diedAt === null || message.ts < c.diedAt;
    verdict =
      firstAfter(claims, message.text, believed, (before) => before.quoted.get(message), memos) ?? null;
    verdicts.set(message, verdict);
  }
  return verdict ?? undefined;
}

/**
 * A message restating a dead claim from when it was still believed, or a claim never live here. A
 * replaced claim is also spoken when the message states one of its dead figures before it was replaced:
 * "They want a 25% discount" words the replaced "25% discount approved" differently, but the 25% no
 * live claim states is the same belief.
 */
export function speaksFromDeadState(
  message: ContextObject,
  claims: DeadClaim[],
  memos: RestatementMemos,
): DeadClaim | undefined {
  const quoted = quotedBelieved(message, claims, memos);
  if (quoted || !FIGURE_PRESENT.test(message.text)) return quoted;
  const figures = figuresOf(message.text, memos);
  // Only before a known replacement: later text citing the old figure is a correction, masked instead.
  const believed = (c: DeadClaim) => c.diedAt !== null && message.ts < c.diedAt;
  const byFigure = replacedFiguresOf(claims, memos);
  for (const figure of byFigure.size ? figures : []) {
    const claim = byFigure.get(figure)?.find(believed);
    if (claim) return claim;
  }
  const reworded = rewordableOf(claims, memos);
  let said: Set<string> | undefined;
  for (const figure of reworded.size ? figures : []) {
    for (const { claim, claimTerms } of reworded.get(figure) ?? []) {
      if (!believed(claim)) continue;
      said ??= new Set(terms(message.text));
      if (claimTerms.every((t) => saysTerm(said as Set<string>, t))) return claim;
    }
  }
  return undefined;
}
