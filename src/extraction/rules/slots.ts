import { findSecrets } from "./classification";
import { isTitle } from "./speaker";
import { snake } from "./text";
import { cleanValue, isAppraisal, MONEY, startsWithDate, statusOf, valueKind } from "./values";

/**
 * Reads slot/value pairs from one clause. A reading names its slot by a subject ("The project budget
 * is $50,000" → project_budget) or, for corrections that name no slot ("Make that $150,000", "Let's
 * try list-based UI instead"), leaves the subject null and says how to find the slot: by the value it
 * replaces, by a value the slot held before, by a slot family ("send it to …" → a destination), or by
 * the kind of value. The extractor resolves those against the conversation's slots.
 *
 * Key scheme (stable across messages, so a later statement about the same slot gets the same key):
 * - the subject noun phrase in snake_case, without articles, possessives and freshness qualifiers
 *   ("the current project budget" → project_budget); "X of the Y" → y_x;
 * - a few synonyms share one head: approach/strategy/implementation → plan, pricing → price,
 *   supplier → vendor, due date → deadline (see KEY_ALIASES);
 * - "X is delayed/cancelled/on hold" → x_status;
 * - decisions without a named subject ("We decided on 3 days in office", "we'll be doing monthly
 *   reviews") share the key `decision`; with one ("… for the contract") the key is that subject;
 * - tentative plans without a subject ("We're thinking pilot program") use `plan`, preferences
 *   `preference` (or `<subject>_preference`);
 * - scheduling ("Let's do the meeting Thursday at 3pm") uses the scheduled thing (`meeting`);
 * - shipping ("ship the package to Los Angeles") uses `<object>_destination`;
 * - secrets use their kind (`api_key`, `password`, `aws_access_key`, …).
 * The extractor then maps a key onto an already known one with the same head ("rate" → hourly_rate).
 */

export type ReadingKind =
  | "secret"
  | "label"
  | "copula"
  | "status"
  | "decision"
  | "choice"
  | "tentative"
  | "preference"
  | "schedule"
  | "destination"
  | "finalize"
  | "money_noun"
  | "change";

export interface SlotReading {
  kind: ReadingKind;
  /** Key from the clause's own subject, before resolution; null when the clause names no slot. */
  subject: string | null;
  value: string;
  /** A value the clause says is being replaced ("instead of Redis", "Your $200K is now …"). */
  oldValue: string | null;
  /** The wording itself is change language ("make that", "change it to", "switch to"). */
  change: boolean;
  /** "go back to X": X is a value some slot held before. */
  goBack: boolean;
  /** For pronoun objects ("send it to …"), the family of slot keys to look in. */
  family: string | null;
  /** The attribute a partial update names ("change the quantity to 1500" → quantity). */
  attr: string | null;
  /** Talks about a past value ("The original date was …"). */
  historical: boolean;
  /** A modal copula ("would be", "could be"): hypothetical. */
  modal: boolean;
  /** Labelled as a draft ("Draft pricing: $85 per unit"). */
  draft: boolean;
  /** Hedged ("We're thinking …"). */
  tentative: boolean;
  /**
   * Change wording that also has everyday uses ("move to", "change to"): without other evidence it
   * must not pick a slot by recency alone.
   */
  weak: boolean;
  /** Key to use when a subjectless reading finds no slot ("We're thinking pilot program" → plan). */
  fallbackKey: string | null;
}

function reading(
  kind: ReadingKind,
  subject: string | null,
  value: string,
  extra: Partial<SlotReading> = {},
): SlotReading {
  return {
    kind,
    subject,
    value,
    oldValue: null,
    change: false,
    goBack: false,
    family: null,
    attr: null,
    historical: false,
    modal: false,
    draft: false,
    tentative: false,
    weak: false,
    fallbackKey: null,
    ...extra,
  };
}

// ---------------------------------------------------------------------------------------------------
// Subjects and keys

/** Whole-key synonyms: the right-hand key is the one stored. */
export const KEY_ALIASES: Record<string, string> = {
  approach: "plan",
  strategy: "plan",
  implementation: "plan",
  implementation_plan: "plan",
  implementation_approach: "plan",
  implementation_strategy: "plan",
  rollout_plan: "plan",
  pricing: "price",
  unit_price: "price",
  price_per_unit: "price",
  due_date: "deadline",
  supplier: "vendor",
  selected_vendor: "vendor",
  meeting_time: "meeting",
  meeting_date: "meeting",
  team_size: "headcount",
};

/** Head-noun synonyms used when comparing keys ("implementation_approach" and "plan" share a head). */
export const HEAD_ALIASES: Record<string, string> = {
  approach: "plan",
  strategy: "plan",
  implementation: "plan",
  pricing: "price",
  supplier: "vendor",
  provider: "vendor",
  priorities: "priority",
  // Where something is sent is its location: "order_destination" names the stored order_location.
  destination: "location",
};

const DETERMINER =
  /^(?:the|our|my|your|their|its|his|her|this|that|these|those|a|an|current|new|updated|revised|final|finalized|finalised|official|actual|real|latest|present|corrected|correct|true|overall|exact|agreed|confirmed|original|originally|previous|old|initial|former|prior)\s+/i;
const SUBJECT_STOP = new Set([
  "i",
  "i'm",
  "im",
  "we",
  "we're",
  "you",
  "he",
  "she",
  "they",
  "it",
  "it's",
  "this",
  "that",
  "that's",
  "these",
  "those",
  "there",
  "here",
  "what",
  "which",
  "who",
  "why",
  "how",
  "when",
  "where",
  "if",
  "let's",
  "lets",
  "please",
  "can",
  "could",
  "would",
  "should",
  "will",
  "do",
  "does",
  "did",
  "is",
  "are",
  "not",
  "no",
  "yes",
  "and",
  "but",
  "or",
  "so",
  "because",
  "then",
  "also",
  "just",
  "everything",
  "nothing",
  "something",
  "anything",
  "everyone",
  "someone",
  "anyone",
  "nobody",
  "all",
  "both",
  "each",
  "one",
  "today",
  "tomorrow",
  "yesterday",
  "now",
  "reason",
  "thing",
  "point",
  "idea",
  "problem",
  "issue",
  "question",
  "answer",
  "truth",
  "fact",
  "news",
  "good",
  "bad",
  "difference",
  "catch",
  "result",
  "value",
  "number",
  "figure",
  "amount",
  "total",
  "thanks",
  "ok",
  "okay",
  "he's",
  "she's",
  "they're",
  "there's",
  "what's",
  "who's",
]);
/** Subjects so generic that the slot must come from the value instead ("The actual value is $120,000"). */
const GENERIC_SUBJECTS = new Set(["value", "number", "figure", "amount", "total", "answer", "result"]);
const INNER_PRONOUN =
  /^(?:i|we|you|they|he|she|i'm|we're|you're|they're|can|could|would|will|should|must|do|does|did)$/i;
const STATUS_HEADS = /(?:^|_)(?:status|state|phase|stage)$/;
const OF_PHRASE = /^(.+?)\s+(?:of|for)\s+(?:the\s+|our\s+|this\s+|my\s+)?(.+)$/i;
const SUBJECT_TOKEN = /^[a-z0-9#][a-z0-9#&'/+-]*$/i;

function singular(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith("s") && !/(?:ss|us|is|ics)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** Canonical head of a key, for comparing keys ("priorities" ~ "priority", "approach" ~ "plan"). */
export function keyHead(key: string): string {
  const parts = key.split("_");
  const last = parts[parts.length - 1] ?? key;
  const alias = HEAD_ALIASES[last] ?? last;
  return singular(alias);
}

export type SubjectKey = { key: string; generic: boolean } | null;

/** Key for a subject noun phrase, or null when the phrase is not a slot name. */
export function subjectKey(raw: string): SubjectKey {
  let subject = raw.trim().replace(/[,:;]+$/, "");
  for (let i = 0; i < 4; i++) {
    const next = subject.replace(DETERMINER, "");
    if (next === subject) break;
    subject = next;
  }
  if (!subject) return null;
  if (MONEY.test(subject) || startsWithDate(subject)) return null;
  const words = subject.split(/\s+/);
  if (words.length > 5 || !words.every((w) => SUBJECT_TOKEN.test(w))) return null;
  const first = (words[0] ?? "").toLowerCase();
  if (words.length === 1 && GENERIC_SUBJECTS.has(first)) return { key: first, generic: true };
  if (SUBJECT_STOP.has(first)) return null;
  // "Best we can do", "The product I received": a clause, not a slot name.
  if (words.some((w) => INNER_PRONOUN.test(w))) return null;
  if (words.length === 1 && isTitle(first)) return null;
  const of = OF_PHRASE.exec(subject);
  if (of && (of[1] ?? "").split(/\s+/).length <= 2) subject = `${of[2]} ${of[1]}`;
  const key = snake(subject);
  if (!key) return null;
  return { key: KEY_ALIASES[key] ?? key, generic: false };
}

function statusKey(key: string): string {
  return STATUS_HEADS.test(key) ? key : `${key}_status`;
}

/** "X for (the) Y" → value X, qualifier Y; time phrases ("for now", "for next week") are not qualifiers. */
const FOR_QUALIFIER =
  /^(.+?)\s+for\s+(?:the\s+|our\s+|this\s+|all\s+|my\s+)?([a-z][\w-]*(?:\s+[a-z][\w-]*){0,2})$/i;
const NOT_QUALIFIER =
  /^(?:now|today|tomorrow|good|real|sure|example|instance|once|free|me|us|you|them|everyone|a while|the moment|next|this|last|that|it|starters|sale)\b/i;

function splitQualifier(value: string): { value: string; qualifier: string | null } {
  const match = FOR_QUALIFIER.exec(value);
  if (!match) return { value, qualifier: null };
  const qualifier = (match[2] ?? "").trim();
  if (NOT_QUALIFIER.test(qualifier) || startsWithDate(qualifier) || /\d/.test(qualifier)) {
    return { value, qualifier: null };
  }
  return { value: (match[1] ?? "").trim(), qualifier };
}

// ---------------------------------------------------------------------------------------------------
// Patterns, compiled once

const LEAD =
  "(?:let'?s|let us|we'?ll|we will|we should|we need to|we can|we must|i'?ll|i will|i need to|i want to|please|can we|we|i|going to|gonna)";

const MAKE_THAT = new RegExp(
  String.raw`^(?:${LEAD}\s+)?(?:make|change|update|switch|move|push|bump|set|revise|correct|fix|amend|adjust|reschedule|shift|drop|raise|lower|increase|reduce|cut)\s+(?:that|it|this|them)\s+(?:to\s+|at\s+|into\s+|for\s+|down to\s+|up to\s+)?(.+)$`,
  "i",
);
// Not "made": "a friend made it for my birthday" made a thing, it did not change a value.
const PRONOUN_MOVED =
  /\b(?:moved|pushed|changed|switched|bumped|shifted|rescheduled|updated|set|raised|lowered|cut|reduced|increased|extended)\s+(?:it|that|this|them)\s+(?:to|at|until|for|into)\s+(.+)$/i;
const ATTR_CHANGE =
  /\b(?:change|changing|changed|update|updating|updated|switch|switched|move|moving|moved|set|bump|bumped|raise|raised|lower|lowered|increase|increased|decrease|decreased|reduce|reduced|cut|push|pushed|adjust|adjusted|revise|revised|extend|extended|shift|shifted|reschedule|rescheduled|bring|brought)\s+(?:the|our|my|their)\s+([a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,2}?)\s+(?:from\s+(.+?)\s+)?(?:to|up to|down to)\s+(.+)$/i;
const SWITCH_FROM_TO =
  /\b(?:switch|switched|switching|move|moved|moving|change|changed|changing|migrate|migrated|migrating|go|going|went)\s+from\s+(.+?)\s+to\s+(.+)$/i;
const SWITCH_TO =
  /\b(?:switch(?:ed|ing)?|migrat(?:e|ed|ing)|transition(?:ed|ing)?|pivot(?:ed|ing)?|mov(?:e|ed|ing)|chang(?:e|ed|ing))\s+(?:over\s+)?to\s+(.+?)(?:,?\s+(?:instead(?:\s+of\s+(.+))?|rather than\s+(.+)))?$/i;
// "get back to" needs an object to mean a return ("get things back to normal"): without one it is a
// reply ("they'd get back to us") or resuming an activity ("get back to work"), never a slot's value.
const GO_BACK =
  /\b(?:(?:go|going|went|switch|switching|revert|reverting|return|returning|roll|rolling|change|changing|move|moving)\s+(?:it\s+|that\s+|things\s+)?|(?:get|getting|got)\s+(?:it|that|things)\s+)back\s+to\s+(.+)$/i;
const REVERT_TO = /\brevert(?:ed|ing)?\s+to\s+(.+)$/i;
const REPLACE_WITH = /\breplac(?:e|ed|ing)\s+(.+?)\s+with\s+(.+)$/i;
const REPLACED_BY = /^(.+?)\s+(?:was|is|has been|will be|gets|got)\s+replaced\s+(?:by|with)\s+(.+)$/i;
const INSTEAD =
  /\b(?:try|use|do|pick|choose|go with|take|adopt|make it|have|get|order|book|hire|select|send it to|ship it to|deliver it to|send them to|ship them to|target|aim for|offer|go for|schedule it for)\s+(.+?),?\s+(?:instead(?:\s+of\s+(.+))?|rather than\s+(.+))$/i;
const VALUE_SUBJECT = new RegExp(
  String.raw`^(?:the\s+|our\s+|your\s+|my\s+|their\s+)?(${MONEY.source}[^,]*?)\s+(?:is|are)\s+now\s+(.+)$`,
  "i",
);
const NP = String.raw`([A-Za-z#][\w#&'/+-]*(?:\s+[A-Za-z0-9#][\w#&'/+-]*){0,5}?)`;
const WENT_FROM = new RegExp(
  String.raw`^${NP}\s+(?:went|dropped|rose|fell|increased|decreased|moved|changed|jumped|grew|shrank|was cut|was raised|was moved|has gone)\s+from\s+(.+?)\s+to\s+(.+)$`,
  "i",
);
const PARTICIPLE_CHANGE = new RegExp(
  String.raw`^${NP}\s+(?:is\s+|are\s+|has been\s+|have been\s+|was\s+|were\s+|got\s+|been\s+|just\s+|now\s+)?(capped|set|fixed|limited|locked|frozen|reduced|raised|increased|cut|lowered|moved|pushed|changed|updated|revised|extended|bumped|shifted|delayed|postponed|rescheduled|pulled in|brought forward)\s+(?:back\s+)?(?:to|at|until|till)\s+(.+)$`,
  "i",
);
const ACTIVE_OBJECT = /^\s+(?:the|a|an|our|this|that|it|them|his|her|their|my|your|us|me|him|[$€£])/i;
const PROGRESSIVE = /^[a-z]+ing\b/i;
const COPULA_COLON = /\b(is|are|was|were|be)\s*:\s+/gi;
const CHANGE_PARTICIPLES =
  /^(?:moved|pushed|changed|updated|revised|bumped|shifted|rescheduled|pulled in|brought forward|reduced|raised|increased|cut|lowered|extended|delayed|postponed)$/i;

const LABEL = /^([A-Za-z][\w' &/#+-]{0,40}?)\s*(?:\(([^)]{1,40})\))?\s*:\s+(.+)$/;
const LABEL_STOP_FIRST = new Set([
  "got",
  "based",
  "so",
  "and",
  "but",
  "per",
  "as",
  "to",
  "note",
  "notes",
  "fyi",
  "btw",
  "ps",
  "re",
  "hold",
  "urgent",
  "important",
  "warning",
  "reminder",
  "todo",
  "to-do",
  "action",
  "risk",
  "risks",
  "question",
  "questions",
  "q",
  "a",
  "answer",
  "edit",
  "also",
  "then",
  "ok",
  "okay",
  "well",
  "wait",
  "remember",
  "tip",
  "step",
  "update",
  "updates",
  "correction",
  "context",
  "background",
  "example",
  "summary",
  "recap",
  "in",
  "on",
  "at",
  "for",
  "with",
  "from",
  "by",
  "after",
  "before",
  "just",
  "i",
  "we",
  "you",
  "they",
  "he",
  "she",
  "it",
  "this",
  "that",
  "here",
  "there",
  "concern",
  "blocker",
  "next",
  "the",
  "quick",
  "bad",
  "good",
  "great",
  "breaking",
  "heads",
  "news",
  "result",
  "results",
  "lesson",
  "one",
  "critical",
  "back",
  "alert",
  "attention",
  "breaking",
  "caution",
  "notice",
  "psa",
]);
const FIRST_PERSON = /\b(?:i|we|you|my|our|me|us|i'm|we're|i'll|we'll)\b/i;
const LABEL_VERB = /\b(?:be|is|are|was|were|am|been)\b/i;
const FINITE_VERB = /\b(?:is|are|was|were|would|should|could|will|can|must|have|has|had|do|does|did)\b/i;
const DECISION_LABEL = /^(?:approved|decided|decision|agreed|resolved|final decision)$/i;
const LABEL_STOP_LAST =
  /(?:reminder|note|notes|update|fyi|recap|summary|correction|news|question|answer|context|background|example|tip|warning|says|said|asks|asked|wrote|writes|replied)$/i;

const DECIDED = /\b(?:decided|agreed|settled|voted|opted)\s+(?:on|to|that|for|upon)\s+(.+)$/i;
const WILL_BE_DOING =
  /\b(?:we'?ll|we will|we are going to|we'?re going to|we'?re|we are)\s+(?:now\s+)?be\s+(?:doing|having|running|moving to|adopting|following|implementing)\s+(.+)$/i;
const GOING_FORWARD_DOING = /^going forward,?\s+(?:we'?ll|we will)\s+(?:do|have|run)\s+(.+)$/i;
const CHOICE_WITH =
  /\b(?:we'?re|we are|we'?ll|we will|let'?s|let us|i'?m|i am|i'?ll|i will|we should|we|i|going to|gonna)\s+(?:going to\s+|gonna\s+|definitely\s+|now\s+|officially\s+|still\s+)?(?:go(?:ing)?|proceed(?:ing)?|stick(?:ing)?|roll(?:ing)?|run(?:ning)?|mov(?:e|ing)\s+forward|continu(?:e|ing)|keep(?:ing)?)\s+(?:forward\s+)?with\s+(.+)$/i;
const CHOICE_USE =
  /\b(?:let'?s|let us|we'?ll|we will|we'?re going to|we are going to|we should|we|i'?ll|i will|we'?ve decided to|we decided to|we'?re)\s+(?:now\s+|officially\s+|still\s+)?(?:use|using|adopt|adopting|choose|choosing|pick|picking|select|selecting|standardi[sz]e on)\s+(.+)$/i;
const CHOICE_VERB =
  /^(?:to\s+)?(?:use|go with|adopt|choose|pick|select|proceed with|stick with|switch to|move to)\s+(.+)$/i;
const TENTATIVE =
  /\b(?:we'?re|we are|i'?m|i am)\s+(?:thinking(?:\s+about|\s+of)?|considering|leaning\s+towards?|looking at|eyeing|planning on|contemplating|tentatively\s+(?:going with|planning|looking at))\s+(.+)$/i;
const PREFERENCE = /\b(?:i|we)\s+(?:would\s+|'d\s+|really\s+|still\s+|now\s+)?(?:prefer|like)\s+(.+)$/i;
const SCHEDULE =
  /(?:^|\b(?:let'?s|let us|we'?ll|we will|please|can we|i'?ll|i will|we should|we need to|i need to|we can|we)\s+)(?:schedule|book|set|move|reschedule|push|hold|have|do|plan|put|arrange|make)\s+(?:the|our|a|an|my|this)\s+(.+)$/i;
const DESTINATION =
  /\b(?:[Ss]hip|[Ss]end|[Dd]eliver|[Mm]ail|[Rr]oute|[Ff]orward|[Dd]ispatch|[Rr]edirect|[Pp]ost)\s+(?:the\s+|our\s+|my\s+|this\s+|that\s+)?([a-z][\w'-]*(?:\s+[a-z][\w'-]*)?)\s+to\s+(?:the\s+)?([A-Z][\w'.&-]*(?:\s+[A-Z0-9][\w'.&-]*){0,3})/;
const PRONOUN_OBJECT = /^(?:it|them|this|that|these|those|everything|all)$/i;
const FINALIZE =
  /\b(?:finali[sz]ed|set|fixed|locked(?:\s+in)?|agreed(?:\s+on)?|settled(?:\s+on)?|confirmed|pinned|nailed down|landed)\s+(?:the\s+|our\s+)?([a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)\s+(?:at|to|as)\s+(.+)$/i;
const MONEY_NOUN = new RegExp(
  String.raw`\b(?:approved|allocated|authori[sz]ed|set aside|budgeted|requested|committed|secured|earmarked|granted)\s+(?:the\s+|a\s+|an\s+|our\s+)?(${MONEY.source})\s+([a-z][\w-]*(?:\s+(?!for\b)[a-z][\w-]*)?)(?:\s+for\s+(?:the\s+|our\s+|this\s+)?([a-z][\w-]*(?:\s+[a-z][\w-]*)?))?`,
  "i",
);
const MONEY_NOUN_OF = new RegExp(
  String.raw`\b(?:approved|allocated|authori[sz]ed|set|agreed|signed|committed to|offered|quoted)\s+(?:the\s+|a\s+|an\s+|our\s+)?([a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+(?:of|at)\s+(${MONEY.source})(?:\s+for\s+(?:the\s+|our\s+|this\s+)?([A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*)?))?`,
  "i",
);
const COPULA = new RegExp(
  String.raw`^${NP}\s+(is|are|will be|would be|could be|might be|should be|has become|have become|becomes|become|remains|remain|stays|stay|was|were|has been|have been|is going to be|are going to be|is set to|are set to)\s+(?:now\s+|currently\s+|still\s+|officially\s+)?(.+)$`,
  "i",
);
const STATUS_PARTICIPLE = new RegExp(
  String.raw`^${NP}\s+(?:is\s+|are\s+|has been\s+|have been\s+|was\s+|were\s+|got\s+|been\s+|just\s+|now\s+|officially\s+)?(approved|cancell?ed|canceled|rejected|delayed|postponed|paused|blocked|completed|shipped|launched|signed|finali[sz]ed|closed|resolved|suspended|terminated|confirmed|on hold|deferred|rescheduled|withdrawn|denied|accepted|declined)\b(.*)$`,
  "i",
);

// ---------------------------------------------------------------------------------------------------

function value(raw: string | undefined): string | null {
  return raw === undefined ? null : cleanValue(raw);
}

function changeReading(clause: string): SlotReading | null {
  let m = MAKE_THAT.exec(clause) ?? PRONOUN_MOVED.exec(clause);
  if (m) {
    const v = value(m[1]);
    return v ? reading("change", null, v, { change: true }) : null;
  }
  m = GO_BACK.exec(clause) ?? REVERT_TO.exec(clause);
  if (m) {
    const v = value(m[1]);
    return v ? reading("change", null, v, { change: true, goBack: true }) : null;
  }
  m = REPLACED_BY.exec(clause);
  if (m) {
    const v = value(m[2]);
    return v ? reading("change", null, v, { change: true, oldValue: value(m[1]) }) : null;
  }
  m = REPLACE_WITH.exec(clause);
  if (m) {
    const v = value(m[2]);
    return v ? reading("change", null, v, { change: true, oldValue: value(m[1]) }) : null;
  }
  m = ATTR_CHANGE.exec(clause);
  if (m) {
    const v = value(m[3]);
    const subject = subjectKey(m[1] ?? "");
    if (v && subject) {
      return reading("change", subject.key, v, { change: true, attr: subject.key, oldValue: value(m[2]) });
    }
  }
  const participle = participleChangeReading(clause);
  if (participle) return participle;
  m = SWITCH_FROM_TO.exec(clause);
  if (m) {
    const v = value(m[2]);
    if (v) return qualified(reading("change", null, v, { change: true, oldValue: value(m[1]) }));
  }
  m = DESTINATION.exec(clause);
  if (m) return destination(m);
  m = SWITCH_TO.exec(clause);
  if (m) {
    const v = value(m[1]);
    const weak = !/\b(?:switch|migrat|transition|pivot)|\binstead\b|\brather than\b/i.test(m[0]);
    if (v)
      return qualified(reading("change", null, v, { change: true, weak, oldValue: value(m[2] ?? m[3]) }));
  }
  m = INSTEAD.exec(clause);
  if (m) {
    const v = value(m[1]);
    if (v) return qualified(reading("change", null, v, { change: true, oldValue: value(m[2] ?? m[3]) }));
  }
  m = VALUE_SUBJECT.exec(clause);
  if (m) {
    const v = value(m[2]);
    return v ? reading("change", null, v, { change: true, oldValue: value(m[1]) }) : null;
  }
  m = WENT_FROM.exec(clause);
  if (m) {
    const subject = subjectKey(m[1] ?? "");
    const v = value(m[3]);
    if (subject && v) return reading("change", subject.key, v, { change: true, oldValue: value(m[2]) });
  }
  return null;
}

/** A subjectless reading whose value says what it is for ("Memcached for caching") names its slot. */
function qualified(r: SlotReading): SlotReading {
  const split = splitQualifier(r.value);
  if (!split.qualifier) return r;
  const subject = subjectKey(split.qualifier);
  const v = cleanValue(split.value);
  if (!subject || !v) return r;
  return { ...r, subject: subject.key, value: v };
}

function destination(m: RegExpExecArray): SlotReading | null {
  const object = (m[1] ?? "").trim();
  const place = value(m[2]);
  if (!place || !/^[A-Z]/.test(place)) return null;
  if (PRONOUN_OBJECT.test(object)) return reading("destination", null, place, { family: "destination" });
  const subject = subjectKey(object);
  if (!subject) return null;
  return reading("destination", `${subject.key}_destination`, place, { family: "destination" });
}

function labelReading(clause: string): SlotReading | "skip" | null {
  const m = LABEL.exec(clause);
  if (!m) return null;
  let label = (m[1] ?? "").trim();
  const rest = m[3] ?? "";
  if (/^https?$/i.test(label)) return null;
  const words = label.split(/\s+/);
  const first = (words[0] ?? "").toLowerCase();
  if (
    words.length > 4 ||
    LABEL_STOP_FIRST.has(first) ||
    LABEL_STOP_LAST.test(label) ||
    LABEL_VERB.test(label)
  ) {
    return "skip";
  }
  const restWords = rest.trim().split(/\s+/).length;
  // "Carl: MongoDB would be better, use that" is a speaker and an utterance, not a slot.
  if (
    words.length === 1 &&
    /^[A-Z]/.test(label) &&
    (FIRST_PERSON.test(rest) || (restWords >= 7 && FINITE_VERB.test(rest)))
  ) {
    return "skip";
  }
  let draft = false;
  if (DECISION_LABEL.test(label)) label = "decision";
  if (/^draft\b/i.test(label)) {
    draft = true;
    label = label.replace(/^draft\s*/i, "");
    if (!label) return "skip";
  }
  const subject = subjectKey(label);
  const v = cleanValue(rest);
  if (!subject || subject.generic || !v) return "skip";
  return reading("label", subject.key, v, { draft });
}

function scheduleReading(clause: string): SlotReading | null {
  const m = SCHEDULE.exec(clause);
  if (!m) return null;
  const words = (m[1] ?? "").split(/\s+/);
  for (let i = 1; i <= Math.min(4, words.length - 1); i++) {
    const rest = words.slice(i).join(" ");
    if (!startsWithDate(rest)) continue;
    const subject = subjectKey(words.slice(0, i).join(" "));
    const v = cleanValue(rest.replace(/^(?:on|for|to|at|by)\s+/i, ""));
    if (subject && v) return reading("schedule", subject.key, v);
    return null;
  }
  return null;
}

function decisionReading(clause: string): SlotReading | null {
  const m = DECIDED.exec(clause) ?? WILL_BE_DOING.exec(clause) ?? GOING_FORWARD_DOING.exec(clause);
  if (!m) return null;
  const raw = (m[1] ?? "").trim();
  const choice = CHOICE_VERB.exec(raw);
  if (choice) {
    const split = splitQualifier(choice[1] ?? "");
    const v = cleanValue(split.value);
    const subject = split.qualifier ? subjectKey(split.qualifier) : null;
    if (v && subject) return reading("decision", subject.key, v);
  }
  const split = splitQualifier(raw);
  const subject = split.qualifier ? subjectKey(split.qualifier) : null;
  const v = cleanValue(subject ? split.value : raw);
  if (!v) return null;
  return reading("decision", subject?.key ?? "decision", v);
}

function choiceReading(clause: string): SlotReading | null {
  const m = CHOICE_WITH.exec(clause) ?? CHOICE_USE.exec(clause);
  if (!m) return null;
  const split = splitQualifier((m[1] ?? "").replace(/\s+then\b/i, ""));
  if (!split.qualifier) return null;
  const subject = subjectKey(split.qualifier);
  const v = cleanValue(split.value);
  if (!subject || !v) return null;
  return reading("choice", subject.key, v);
}

function tentativeReading(clause: string): SlotReading | null {
  const m = TENTATIVE.exec(clause);
  if (!m) return null;
  const split = splitQualifier(m[1] ?? "");
  const subject = split.qualifier ? subjectKey(split.qualifier) : null;
  const v = cleanValue(split.value);
  if (!v || /^(?:about|whether|if|that|how|what|to)\b/i.test(v)) return null;
  if (subject) {
    // "thinking canary deploys for the rollout": the slot is the rollout's plan; "thinking $90 for
    // the price" is about the price itself.
    const planned = valueKind(v) === "text" && keyHead(subject.key) !== "plan";
    const key = planned ? `${subject.key}_plan` : subject.key;
    return reading("tentative", KEY_ALIASES[key] ?? key, v, { tentative: true });
  }
  // No subject: the value's kind or wording finds the slot ("thinking maybe $90" → the price).
  return reading("tentative", null, v, { tentative: true, weak: true, fallbackKey: "plan" });
}

function preferenceReading(clause: string): SlotReading | null {
  const m = PREFERENCE.exec(clause);
  if (!m) return null;
  const raw = (m[1] ?? "").trim();
  if (/^(?:to|it|that|this|them|the idea|how|what|when|if)\b/i.test(raw)) return null;
  const split = splitQualifier(raw);
  const subject = split.qualifier ? subjectKey(split.qualifier) : null;
  const v = cleanValue(split.value);
  if (!v) return null;
  return reading("preference", subject ? `${subject.key}_preference` : "preference", v);
}

function finalizeReading(clause: string): SlotReading | null {
  const m = FINALIZE.exec(clause);
  if (!m) return null;
  const subject = subjectKey(m[1] ?? "");
  const v = value(m[2]);
  if (!subject || subject.generic || !v) return null;
  return reading("finalize", subject.key, v);
}

function moneyNounReading(clause: string): SlotReading | null {
  const m = MONEY_NOUN.exec(clause);
  if (!m) {
    const of = MONEY_NOUN_OF.exec(clause);
    if (!of) return null;
    const noun = subjectKey(of[1] ?? "");
    const amount = value(of[2]);
    if (!noun || noun.generic || !amount) return null;
    const owner = of[3] ? subjectKey(of[3]) : null;
    return reading("money_noun", owner ? `${owner.key}_${noun.key}` : noun.key, amount);
  }
  const amount = value(m[1]);
  const noun = subjectKey((m[2] ?? "").replace(/[,.;].*$/, ""));
  if (!amount || !noun || noun.generic) return null;
  const owner = m[3] ? subjectKey(m[3]) : null;
  return reading("money_noun", owner ? `${owner.key}_${noun.key}` : noun.key, amount);
}

function participleChangeReading(clause: string): SlotReading | null {
  const m = PARTICIPLE_CHANGE.exec(clause);
  if (!m) return null;
  const subject = subjectKey(m[1] ?? "");
  const v = value(m[3]);
  if (!subject || subject.generic || !v) return null;
  return reading("change", subject.key, v, { change: CHANGE_PARTICIPLES.test(m[2] ?? "") });
}

function copulaReading(clause: string): SlotReading | null {
  const m = COPULA.exec(clause);
  if (!m) return null;
  const verb = (m[2] ?? "").toLowerCase();
  const v = value(m[3]);
  if (!v) return null;
  // "That cup is so cute": how the speaker finds the thing, not a value it holds.
  if (isAppraisal(m[3] ?? v)) return null;
  // "is excluding …", "are trying …": a verb in progress, not a value.
  if (PROGRESSIVE.test(v) && !statusOf(v)) return null;
  const subject = subjectKey(m[1] ?? "");
  const historical = verb === "was" || verb === "were";
  const modal = /^(?:would|could|might|should) be$/.test(verb);
  if (!subject) {
    // "Your $200K is now $140K" names its slot by the old value.
    return null;
  }
  if (subject.generic) return reading("copula", null, v, { historical, modal, change: true });
  const status = statusOf(v);
  const key = status && !STATUS_HEADS.test(subject.key) ? statusKey(subject.key) : subject.key;
  return reading("copula", key, v, { historical, modal });
}

function statusReading(clause: string): SlotReading | null {
  const m = STATUS_PARTICIPLE.exec(clause);
  if (!m) return null;
  // "The CFO approved the budget" is an act with an object, not a status.
  if (ACTIVE_OBJECT.test(m[3] ?? "") || isTitle(m[1] ?? "")) return null;
  const subject = subjectKey(m[1] ?? "");
  if (!subject || subject.generic) return null;
  const v = cleanValue(`${m[2] ?? ""}${m[3] ?? ""}`);
  if (!v) return null;
  return reading("status", statusKey(subject.key), v);
}

const HALT =
  /^(?:let'?s\s+|please\s+|we need to\s+|we should\s+|we'?ll\s+|we will\s+|we have to\s+|we must\s+|i'?ll\s+|i will\s+)?(cancel|hold off on|put on hold|pause|stop|halt|freeze|suspend|revoke|withdraw|terminate|kill|scrap|shelve)\s+(?:the\s+|that\s+|this\s+|our\s+|my\s+|any\s+)?(.+)$/i;
const HALT_STATUS: Record<string, string> = {
  cancel: "cancelled",
  kill: "cancelled",
  scrap: "cancelled",
  "hold off on": "on hold",
  "put on hold": "on hold",
  shelve: "on hold",
  pause: "paused",
  stop: "stopped",
  halt: "stopped",
  freeze: "frozen",
  suspend: "suspended",
  revoke: "revoked",
  withdraw: "withdrawn",
  terminate: "terminated",
};
const HALT_OBJECT_CUT = /\s+(?:for now|until|because|due to|since|as|while|pending|,).*$/i;

/** "Cancel that purchase", "Hold off on Acme Supplies": the object's status changes. */
function haltReading(clause: string): SlotReading | null {
  const m = HALT.exec(clause);
  if (!m) return null;
  const status = HALT_STATUS[(m[1] ?? "").toLowerCase()];
  const object = (m[2] ?? "").replace(HALT_OBJECT_CUT, "").trim();
  if (!status || !object) return null;
  if (PRONOUN_OBJECT.test(object)) return reading("status", null, status, { change: true, family: "status" });
  const subject = subjectKey(object);
  if (!subject || subject.generic) return null;
  return reading("status", statusKey(subject.key), status, { change: true });
}

/**
 * "500 units of packages to Chicago hub": a count of something and where it goes. One phrase, two
 * slots: a later "change the quantity to 1500" must replace the count and leave the place alone.
 */
const COUNT_TO_PLACE =
  /^(\d[\d,]*(?:\.\d+)?\s+(?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*(?:\s+of\s+(?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*)?)\s+(?:to|bound for|headed (?:to|for)|going to|destined for)\s+(?:the\s+)?([A-Z][\w'.&-]*(?:\s+[A-Za-z0-9][\w'.&-]*){0,3})$/;

/** A named reading whose value is a count bound for a place becomes `<subject>_quantity` and `_destination`. */
export function splitCompound(r: SlotReading): SlotReading[] {
  if (!r.subject || r.draft) return [r];
  const m = COUNT_TO_PLACE.exec(r.value);
  const quantity = value(m?.[1]);
  const place = value(m?.[2]);
  if (!quantity || !place) return [r];
  const owner = r.subject.replace(/_(?:quantity|destination|location)$/, "");
  return [
    { ...r, subject: `${owner}_quantity`, value: quantity },
    { ...r, kind: "destination", subject: `${owner}_destination`, value: place, family: "destination" },
  ];
}

const MAX_CLAUSE = 400;

function secretReadings(clause: string): SlotReading[] {
  return findSecrets(clause).map((s) => reading("secret", s.kind, s.value));
}

/**
 * All slot readings of one clause: secrets, plus the first of the ordered patterns that matches
 * (corrections first, because "switch to X instead" is also a copula-free statement of X).
 */
export function readSlots(input: string, depth = 0): SlotReading[] {
  const clause = input
    .replace(COPULA_COLON, "$1 ")
    .replace(/[.!]+$/, "")
    .trim();
  const out = secretReadings(clause);
  // Very long run-on clauses are not slot statements; reading them would only cost time.
  if (out.length || clause.length > MAX_CLAUSE || depth > 2) return out;
  const label = labelReading(clause);
  if (label === "skip") {
    const rest = clause.slice(clause.indexOf(":") + 1).trim();
    return rest && rest !== clause ? readSlots(rest, depth + 1) : out;
  }
  if (label) {
    if (label.draft || label.subject) out.push(...splitCompound(label));
    return out;
  }
  const found =
    changeReading(clause) ??
    haltReading(clause) ??
    decisionReading(clause) ??
    choiceReading(clause) ??
    tentativeReading(clause) ??
    preferenceReading(clause) ??
    scheduleReading(clause) ??
    finalizeReading(clause) ??
    moneyNounReading(clause) ??
    copulaReading(clause) ??
    statusReading(clause);
  if (found) {
    out.push(...(found.kind === "copula" ? splitCompound(found) : [found]));
    return out;
  }
  // "This is confidential, do not share outside HR: Sarah's salary is $120k" states after the colon.
  const colon = clause.indexOf(": ");
  if (colon > 0 && colon < clause.length - 2) return readSlots(clause.slice(colon + 2), depth + 1);
  return out;
}
