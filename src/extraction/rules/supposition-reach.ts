import { opensHypotheticalMessage, shiftsTopic } from "./signals";
import { keyStem } from "./slot-registry";
import { contentWords } from "./text";

/**
 * How far a supposition reaches within its turn (issue 16, item 1: a single cue never hides more than
 * its sentence). "What if we moved the launch to June 3? Then QA would start May 20." supposes in both
 * sentences; "Imagine a bowl shaped like a seashell. My instructor is called Petra Lund." supposes in
 * the first only: the second is a plain statement of another matter, real and global.
 *
 * A sentence after a supposing lead ("what if", "suppose", "imagine", "hypothetically", "let's say")
 * goes on supposing when it shows it does:
 * - it opens by leaning on what came before ("Then …", "So …", "In that case …", "It …", "That …",
 *   "We'd …") or speaks in the conditional ("would", "could", "might", "we'd");
 * - it states a consequence ("the bill goes up", "that means", "it saves", "comes to");
 * - it points back at the supposed thing ("… fire it on Friday", "payroll is $12,000 then");
 * - it is about the same matter: it shares a content word with the supposition ("Suppose we hire two
 *   bakers. The bakers start at 5am.").
 * A sentence that shows none of these, or announces a change of topic ("Anyway, …", "On another
 * note, …"), ends the supposition: it and the sentences after it are read as they stand.
 */
const LEANS_BACK =
  /^\W*(?:then|so|and|or|but|otherwise|in that case|in which case|if so|that way|which|it|it'?s|it'd|that|this|they|those|these|there|we'?d|i'?d|you'?d|they'?d|he'?d|she'?d)\b/i;
const CONDITIONAL = /\b(?:would|could|might|wouldn'?t|couldn'?t|[a-z]+'d)\b/i;
const CONSEQUENCE =
  /\b(?:go(?:es)? (?:up|down)|ris(?:e|es)|drops?|falls?|doubles?|triples?|halves|jumps?|becomes?|means?|saves?|ends? up|comes? (?:to|out)|works? out|adds? up|leaves? (?:us|me|them))\b/i;
const POINTS_BACK = /\b(?:it|them|that one|those ones|then)\b/i;

/** Fewer words than this is an aside ("Thoughts?"), not another matter. */
const ASIDE_WORDS = 3;

/** The words of the frame itself say nothing of the matter supposed. */
const FRAME_WORDS = /^(?:suppos\w*|imagin\w*|hypothetical\w*|say|pretend\w*|assum\w*|theoretical\w*)$/;
const stems = (text: string) =>
  contentWords(text)
    .filter((w) => !FRAME_WORDS.test(w))
    // The slot registry's stem, so "glaze" and "glazes", "booked" and "booking" meet.
    .map(keyStem);

/** Follows the supposition a turn's sentences are in, sentence by sentence. */
export class SuppositionReach {
  /** The stems the supposition has spoken of so far; null when no supposition is running. */
  private matter: Set<string> | null = null;
  /**
   * The turn went on to another matter after a supposition: turning the supposition down later must
   * not take the turn's real statements out of view with it.
   */
  movedOn = false;

  /**
   * Whether `sentence` (raw, with its opening words) is inside the running supposition; then notes
   * whether it opens one for the sentences after it (`lead`: the sentence without its fillers).
   */
  next(sentence: string, lead: string): boolean {
    const inside = this.matter !== null && this.continues(sentence);
    if (inside) for (const word of stems(sentence)) this.matter?.add(word);
    else if (this.matter !== null && sentence.split(/\s+/).length >= ASIDE_WORDS) this.movedOn = true;
    if (!inside) this.matter = null;
    if (opensHypotheticalMessage(lead) || opensHypotheticalMessage(sentence))
      this.matter = new Set([...(this.matter ?? []), ...stems(lead)]);
    return inside;
  }

  private continues(sentence: string): boolean {
    const s = sentence.trim();
    if (shiftsTopic(s)) return false;
    if (LEANS_BACK.test(s) || CONDITIONAL.test(s) || CONSEQUENCE.test(s) || POINTS_BACK.test(s)) return true;
    return stems(s).some((word) => this.matter?.has(word));
  }
}
