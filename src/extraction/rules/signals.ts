import { contentWords } from "./text";

/**
 * Change language and the guardrails around it (seed 000 rule 1, seed 002 triggers).
 *
 * - Strong triggers are seed 002's list (instead, replaced, switched, changed to, no longer) plus
 *   phrasings that can only mean a replacement ("make that", "change it to", "go back to", "overriding
 *   that", "scratch that").
 * - Weak triggers are the rest of seed 000's list (moved, updated, new, now, actually, correction,
 *   "as of today"). They count only when the same sentence states a slot value; the caller checks that.
 *   "actually" and "correction" alone never supersede anything.
 * - Questions, hypotheticals and hedged statements never supersede.
 */

const STRONG =
  /\b(instead|replaced|replace\s+\w+(?:\s+\w+)?\s+with|replacing|switch(?:ed|ing)?\s+(?:over\s+)?to|switch(?:ed|ing)?\s+from|changed?\s+(?:that\s+|it\s+|this\s+|the\s+\w+(?:\s+\w+)?\s+)?to|changing\s+(?:that|it|this|the\s+\w+)\s+to|no longer|make\s+(?:that|it)|overrid(?:e|es|ing|den)|overrode|scratch that|go(?:ing)? back to|revert(?:ed|ing)?\s+to|rather than)\b/i;
const WEAK =
  /\b(moved|moving|updated|update|new|now|actually|correction|corrected|as of (?:today|now)|no wait|finali[sz]ed|officially|official|revised|rescheduled|pushed|bumped|changed|reduced|increased|raised|cut|lowered|extended)\b/i;

export interface ChangeSignal {
  trigger: string | null;
  strong: boolean;
}

export function changeSignal(text: string): ChangeSignal {
  const strong = STRONG.exec(text);
  if (strong) return { trigger: (strong[1] ?? "").toLowerCase().replace(/\s+/g, " "), strong: true };
  const weak = WEAK.exec(text);
  if (weak) return { trigger: (weak[1] ?? "").toLowerCase(), strong: false };
  return { trigger: null, strong: false };
}

const WH_START =
  /^(?:what|when|where|who|whom|whose|why|how|which|is|are|am|was|were|do|does|did|can|could|would|should|will|shall|may|might|have|has|had|isn't|aren't|don't|doesn't|didn't|won't|wouldn't|shouldn't|couldn't)\b/i;

/** A question: a "?" at the end, or an interrogative opening with no statement punctuation. */
export function isQuestion(sentence: string): boolean {
  const s = sentence.trim();
  if (s.endsWith("?")) return true;
  return WH_START.test(s) && !/[.!]$/.test(s) && /^(?:what|when|where|who|why|how|which)\b/i.test(s);
}

/** A request to the assistant phrased as a question ("Can you check …?"): an action, not a question. */
const REQUEST = /^(?:can|could|would|will)\s+you\s+(?:please\s+)?[a-z]+|^please\b/i;
export function isRequest(sentence: string): boolean {
  return REQUEST.test(sentence.trim());
}

const HYPOTHETICAL_START =
  /^(?:what if|if|suppose|supposing|imagine|hypothetically|theoretically|in theory|assuming|assume|say we|let'?s say|let'?s pretend|pretend|in a hypothetical|in an ideal world|worst case|best case|in the worst case|in the best case)\b/i;
const HYPOTHETICAL_ANY =
  /\b(?:what if|hypothetical(?:ly)?|theoretical(?:ly)?|in theory|would be|could be|might be|would cost|could cost|might cost|would need|could do|could go|could offer|could use|could add|could try|could maybe|might want|we could|maybe|perhaps|possibly|potentially|speculative(?:ly)?|for the sake of argument|if we (?:were|had|went|did|moved|bought|chose|switched|used))\b/i;

/**
 * Reported speech puts "would" in the past's future ("we explained their brother would be OK"): what
 * someone said or thought would happen, not a supposition. Its "would" is dropped before looking for
 * hypothetical wording: only that "would" goes, so other hedges in the sentence still count.
 */
const REPORTED_WOULD =
  /\b(?:said|told|explained|thought|knew|promised|assured|reassured|hoped|figured|believed|expected|realized|realised|guessed|felt|heard)\b[^.?!;]*?\bwould\b/gi;

/**
 * A proposal put to the conversation rather than a decision taken: an idea floated or pitched ("She
 * floated cutting the list to 110", "we've been toying with a May launch"), someone pressing an
 * alternative ("My dad keeps pushing a Tuesday pickup instead", "the vendor suggested Postgres
 * instead"), or a question that offers a change ("Would it be crazy to drop to the basic plan?",
 * "Maybe we could move it to June?"). Like "what if", it supposes: nothing in it is settled until a
 * later turn adopts it ("fine, we'll take the basic plan") or turns it down.
 */
const PROPOSAL_FRAME = new RegExp(
  [
    String.raw`\b(?:floated|floating|pitched|pitching)\s+(?!in\b|out\b|a\s+tent\b)`,
    String.raw`\b(?:toy(?:ing|ed)|play(?:ing|ed)|flirt(?:ing|ed))\s+with\s+(?:the\s+idea|an?\s+)`,
    String.raw`\bkick(?:ing|ed)\s+around\b`,
    String.raw`\b(?:keeps|kept)\s+(?:pushing|suggesting|proposing|pitching|floating|bringing\s+up)\s+(?!forward\b|on\b|through\b|ahead\b|back\b|each\s+other\b|(?:me|us|him|her|them|you|my|our|his|their|your)(?:sel(?:f|ves))?\b)`,
    String.raw`\b(?:suggest(?:s|ed|ing)?|propos(?:es|ed|ing)|push(?:es|ed|ing)\s+for)\b(?=[^.?!;]*\binstead\b)`,
    String.raw`^(?:would|wouldn't|would\s+it\s+not)\s+it\s+be\s+(?:crazy|dumb|silly|stupid|nuts|insane|smarter|better|cheaper|wiser|a\s+(?:bad|good|terrible)\s+idea)\s+(?:to|if)\b`,
    String.raw`^(?:maybe|perhaps)\s+we\s+(?:could|should)\s+(?:just\s+)?(?:move|switch|change|drop|go|cut|bump|push|pick|try)\b`,
    // "Should we just switch to the annual plan?", "Is it worth upgrading to the Pro?"
    String.raw`^(?:should|could|shall)\s+(?:we|i)\s+(?:just\s+)?(?:move|switch|change|drop|downgrade|upgrade|go|cut|bump|push)\s+(?:down\s+|up\s+|over\s+|back\s+)?(?:to|it\s+to|the)\b`,
    String.raw`^(?:is|would)\s+it\s+(?:be\s+)?worth\s+(?:switching|moving|dropping|downgrading|upgrading|going|changing)\b`,
    // "What about the LE trim instead?" (a bare "what about you?" offers nothing)
    String.raw`^(?:what|how)\s+about\b(?=[^.?!;]*\binstead\b)`,
  ].join("|"),
  "i",
);
function proposes(sentence: string): boolean {
  return PROPOSAL_FRAME.test(sentence.trim());
}

/** Verbs of changing that say a proposal is one, not what it proposes. */
const CHANGE_VERBS =
  /^(?:move|moved|moving|switch|switched|switching|change|changed|changing|drop|dropped|dropping|go|going|went|cut|cutting|bump|bumped|push|pushed|pick|try|instead|crazy|floated|pitched|suggested|proposed|pushing|keeps|kept)$/;

/**
 * What a supposition names, for a later turn that takes it up by naming it again ("fine, we'll take
 * the LE"): its names and figures when it has any (capitalised words past the first, words with
 * digits), else its content words; the words of the frame itself never count.
 */
export function proposedTerms(sentence: string): string[] {
  const body = sentence.replace(PROPOSAL_FRAME, " ").replace(HYPOTHETICAL_FRAME, " ");
  const tokens = body.trim().split(/\s+/).slice(1);
  const names = tokens
    .filter((t) => /^[A-Z0-9]/.test(t) || /\d/.test(t))
    .flatMap((t) => contentWords(t))
    .filter((w) => !CHANGE_VERBS.test(w));
  if (names.length) return [...new Set(names)];
  return [...new Set(contentWords(body).filter((w) => !CHANGE_VERBS.test(w)))];
}

/** A hypothetical or speculative sentence: its facts belong to a hypothetical scope, never global. */
export function isHypothetical(sentence: string): boolean {
  return (
    HYPOTHETICAL_START.test(sentence.trim()) ||
    proposes(sentence) ||
    HYPOTHETICAL_ANY.test(sentence.replace(REPORTED_WOULD, (report) => report.slice(0, -"would".length)))
  );
}

/**
 * An explicit hypothetical frame: the sentence says it supposes ("what if", "hypothetically",
 * "suppose", "imagine", "in theory", "for the sake of argument"). A hedge ("maybe", "could be",
 * "might") or a bare "if" makes a sentence's facts hypothetical, but is no evidence that the turn as a
 * whole is a supposition.
 */
const HYPOTHETICAL_FRAME =
  /^(?:what if|suppose|supposing|imagine|hypothetically|theoretically|in theory|say we|let'?s (?:say|pretend|imagine))\b|\b(?:what if|hypothetical(?:ly)?|theoretical(?:ly)?|in theory|for the sake of argument|thought experiment)\b/i;
export function framesHypothetical(sentence: string): boolean {
  return HYPOTHETICAL_FRAME.test(sentence.trim()) || proposes(sentence);
}

/** A change of topic announced ("Anyway, …", "On another note, …"): what follows is another matter. */
const TOPIC_SHIFT =
  /^\W*(?:anyway|anyhow|moving on|on (?:a |an )?(?:different|separate|unrelated|other|another) (?:note|topic|subject)|on another note|changing (?:the )?(?:subject|topic)|(?:a |on a )?(?:different|separate|unrelated|new) (?:topic|question|subject)|unrelated(?: question)?\s*[:,]|separately\s*[:,]|switching (?:gears|topics)|in other news)\b/i;
export const shiftsTopic = (text: string) => TOPIC_SHIFT.test(text.trim());

/**
 * What a supposition supposes, as a statement: "What if the deposit were $900?" supposes "the deposit
 * is $900". The frame goes, and its subjunctive "were" is the supposed present, not a past value
 * ("The deposit was $700" retires a value; "if the deposit were $900" states one, in its own scope).
 */
const SUPPOSING_OPENER =
  /^(?:what if|suppose|supposing|imagine|assuming|say|let'?s (?:say|suppose|imagine|pretend))\s+(?:that\s+)?/i;
const SUBJUNCTIVE_WERE = /^((?:the|our|my|your|their|this|that)\s+(?:[\w'-]+\s+){0,4}?)were\b/i;
export function supposedStatement(sentence: string): string {
  return sentence
    .trim()
    .replace(/\?+\s*$/, "")
    .replace(SUPPOSING_OPENER, "")
    .replace(SUBJUNCTIVE_WERE, "$1is");
}

/** Sentences that make the rest of their message hypothetical too ("What if we …? Then …"). */
const HYPOTHETICAL_LEAD =
  /^(?:what if|hypothetically|suppose|supposing|imagine|let'?s (?:say|pretend|imagine))\b/i;
export function opensHypotheticalMessage(sentence: string): boolean {
  return HYPOTHETICAL_LEAD.test(sentence.trim());
}

const TENTATIVE =
  /\b(?:thinking(?: about)?|considering|leaning (?:toward|towards)|tentative(?:ly)?|probably|likely|tbd|to be decided|to be confirmed|tbc|not final|pending approval|proposed|proposal|draft|rough)\b/i;

/** Hedged but real: stored with low confidence, and never allowed to supersede. */
export function isTentative(sentence: string): boolean {
  return TENTATIVE.test(sentence);
}

const HISTORICAL =
  /\b(?:originally|previously|initially|used to|at first|before that|formerly|the old|the original|the previous|last time|was supposed to)\b/i;

/** Talks about what used to hold ("The original launch date was …"): history, not current state. */
export function isHistorical(sentence: string): boolean {
  return HISTORICAL.test(sentence);
}

const NEGATED = /\b(?:not|n't|never|no longer|neither|nor)\b/i;
export function isNegated(text: string): boolean {
  return NEGATED.test(text);
}

const ACKNOWLEDGEMENT =
  /^(?:ok(?:ay)?|sure|noted|got it|understood|confirmed|done|will do|sounds good|perfect|great|agreed|roger|yes|yep|absolutely|of course|certainly|right away|on it|recorded|updated|changed|switching|scheduled|acknowledged)\b/i;

/** An assistant turn that confirms what the user just said rather than adding anything. */
export function isAcknowledgement(text: string): boolean {
  return ACKNOWLEDGEMENT.test(text.trim());
}
