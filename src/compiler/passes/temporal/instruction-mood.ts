import { COMMAND_VERBS } from "../../../extraction/rules/items";
import { UNITS } from "../../../extraction/rules/slots/asking";

/**
 * What each clause of an attributed line does (issue 17, item 5). A higher rank overrides only what
 * was asked for: an instruction, a request, a proposal, a plan or a commitment. A line that tells what
 * is or was ("The budget report shows $5,000 in savings", "we saw 3 weeks of delays") and one that
 * asks a question state nothing a rule can overrule, even when they share a word and a larger figure
 * with it; hiding them would take a user's data out of view on a guess.
 *
 * - directive: a command ("Give …", "Go ahead and …"), "let's", an obligation or proposal ("should",
 *   "must", "would be better", "… instead"), a commitment or plan in the speaker's own words ("we
 *   will", "I'm offering", "plan to"), a grant ("Mia can approve …", "has my approval to"), or an
 *   estimate or deadline committed to ("will take 3 weeks", "needs 10 days", "will be ready by Friday");
 * - report: what is or was observed, measured or said ("shows", "was", "reported", "we saw", "last
 *   quarter"): it outweighs a directive word in the same clause, as a figure there is what happened;
 * - question: a sentence ending in "?" or opening with an inverted auxiliary ("Should we …");
 * - statement: anything else, a prohibition included ("Don't …", "Cancel …"): it asks for no value.
 */
export type Mood = "directive" | "report" | "question" | "statement";

/** Words that open a command beyond the item reader's list: spending, granting, choosing. */
const MORE_COMMANDS =
  "use|process|spend|refund|reimburse|launch|deliver|grant|extend|raise|increase|lower|reduce|set|keep|take|go with|go ahead|switch|choose|pick|proceed|allow|authori[sz]e|waive|match|accept|sell|charge|quote|commit|promise|make|do|double|fund|reserve|award|transfer|wire|rent|lease|bump|remind|turn down";
/** Commands that refuse, stop or undo: they ask for no value of their own, whatever figure they name. */
const REFUSAL =
  /^(?:cancel|stop|halt|pause|hold off|drop|freeze|block|reject|decline|refuse|deny|turn down|veto|withdraw|revoke|scrap|kill|abandon|don'?t|do not|never|no)\b/i;
/** A negated verb prohibits ("we should not offer …"); a "no" inside a clause ("with no delay") does not. */
const NEGATION = /\b(?:not|never|cannot|can'?t|won'?t|don'?t|doesn'?t|shouldn'?t|mustn'?t)\b|n't\b/i;
const FILLER = /^(?:please|kindly|just|so|then|and|also|now|ok(?:ay)?|yes|sure)\b[\s,]*/i;
/** A command: a clause opening with a verb of doing, with no finite "is"/"was" of its own. */
const COMMAND = new RegExp(`^(?:${COMMAND_VERBS}|${MORE_COMMANDS})\\b`, "i");
const COPULA = /\b(?:is|are|was|were|isn'?t|aren'?t)\b/i;
const DURATION = `(?:\\d+|${Object.keys(UNITS).join("|")})[\\s-](?:day|week|month|year)s?`;

/** Obligation, proposal, plan, grant or commitment, wherever in the clause. */
const DIRECTIVE = new RegExp(
  [
    "\\blet'?s\\b|\\blet us\\b",
    "\\b(?:should|must|shall|ought to|needs? to|ha(?:ve|s) to|had better)\\b",
    // The speaker's own commitment or request ("we will", "I'm offering", "we'd like").
    "\\b(?:i|we)(?:'ll| will| shall|'m| am|'re| are|'d| would)?\\s+(?:going to|(?:\\w+ly\\s+)?(?:propos|suggest|recommend|request|ask|want|need|approv|authori[sz]|offer|promis|commit|plan|intend|expect|estimat|insist|prefer|like to|deliver|ship|give|pay|spend|use|book|order|buy|hire|send)\\w*)\\b",
    "\\b(?:i|we)(?:'ll| will| shall)\\b",
    "\\b(?:ha(?:s|ve) (?:my|our|the) (?:approval|go-ahead|sign-off)|(?:is|are) (?:approved|authori[sz]ed|cleared) to)\\b",
    "\\b(?:plans? to|planning to|intends? to|the plan is|aims? to)\\b",
    "\\b(?:would be (?:better|best)|better to|instead|rather than)\\b",
    // An estimate or deadline committed to.
    `\\b(?:take|takes|need|needs|require|requires)\\s+(?:about |around |roughly |approximately |at least |another |only |just )?${DURATION}`,
    "\\b(?:will|would|can|could)\\s+(?:take|need|require|be (?:done|ready|finished|complete|delivered|shipped|live))\\b",
    "\\b(?:estimate|eta)\\b",
  ].join("|"),
  "i",
);
/** Telling what is or was observed, measured, spent or said. */
const REPORT = new RegExp(
  [
    "\\b(?:shows?|showed|shown|showing|indicates?|indicated|reveals?|revealed|reported|reports that|found|saw|seen|noticed|observed|measured|recorded|logged|came in|comes in|totals|totall?ed|totall?ing|averaged|averages|peaked|amounted|stood at|stands at)\\b",
    "\\b(?:was|were|had been|has been|have been|used to)\\b",
    "\\b(?:said|says|told|mentioned|noted|stated|wrote|according to)\\b",
    "\\b(?:last (?:week|month|quarter|year|time)|yesterday|ago|previously|so far|to date|in the past|historically)\\b",
    "\\b(?:we|i|they|he|she|it|you)\\s+(?:\\w+ed|spent|paid|took|had|did|made|got|gave|sold|bought|came|went|ran|grew|fell|rose|lost|won|left|sent|built|kept|met|brought)\\b",
  ].join("|"),
  "i",
);
/** A grant or a proposal by someone named: "Mia can approve …", "we could offer …" (names keep their capital). */
const GRANT = new RegExp(
  `\\b(?:[Ii]|[Ww]e|[Yy]ou|[A-Z][a-z]+)\\s+(?:can|could|may)\\s+(?:${COMMAND_VERBS}|${MORE_COMMANDS})\\b`,
);
/** "no later than", "not to exceed": bounds, not refusals. */
const BOUND_WORDS = /\b(?:no|not) (?:later|earlier|more|less|fewer) than\b|\bnot to exceed\b/gi;
const INVERTED =
  /^(?:can|could|should|shall|may|might|will|would|do|does|did|is|are|have|has)\s+(?:we|i|you|they|he|she|it|the|this|that|our|there)\b/i;
/** Sentences end at ".", "!", "?" or ";" before a space ("$1.5k" stays whole). */
const SENTENCE = /(?:[^.!?;\n]|[.!?;](?![\s.!?;]|$))+(?:[.!?;]+|$)/g;
/** Clauses within a sentence: after a comma, a colon or a dash ("$3,200" and "10:30" stay whole). */
const CLAUSE = /\s*(?:[,:]\s|\s[—–-]\s)\s*/;

export interface Clause {
  text: string;
  mood: Mood;
}

function moodOf(clause: string, question: boolean): Mood {
  let text = clause.trim();
  for (let i = 0; i < 3 && FILLER.test(text); i++) text = text.replace(FILLER, "");
  if (question || INVERTED.test(text)) return "question";
  if (REPORT.test(text)) return "report";
  if (REFUSAL.test(text) || NEGATION.test(text.replace(BOUND_WORDS, ""))) return "statement";
  if (COMMAND.test(text) && !COPULA.test(text)) return "directive";
  return DIRECTIVE.test(text) || GRANT.test(text) ? "directive" : "statement";
}

/** The clauses of a line, each with what it does. */
export function clauses(body: string): Clause[] {
  const out: Clause[] = [];
  for (const m of body.matchAll(SENTENCE)) {
    const sentence = m[0].trim();
    if (!sentence) continue;
    const question = sentence.endsWith("?");
    for (const part of sentence.replace(/[.!?;]+$/, "").split(CLAUSE)) {
      if (part.trim()) out.push({ text: part.trim(), mood: moodOf(part, question) });
    }
  }
  return out;
}
