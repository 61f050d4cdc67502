import { normalizeValue } from "./text";

/**
 * What kind of value a slot holds. The kind links a subjectless correction to its slot ("Make that
 * $150,000" changes the latest money slot) and marks time-sensitive slots (seed 000, rule 4).
 */
export type ValueKind = "money" | "percent" | "date" | "count" | "duration" | "status" | "text";

const MONEY_SOURCE = String.raw`(?:[$€£¥]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:[kmb]|mm|million|billion|thousand)\b)?|\b\d[\d,]*(?:\.\d+)?\s?(?:[kmb]\s)?(?:usd|eur|gbp|dollars|euros|pounds)\b)`;
export const MONEY = new RegExp(MONEY_SOURCE, "i");
const MONEY_G = new RegExp(MONEY_SOURCE, "gi");
export const PERCENT = /\b\d+(?:\.\d+)?\s?(?:%|percent\b)/i;

const WEEKDAY = "(?:mon|tues|wednes|thurs|fri|satur|sun)day";
const MONTH =
  "(?:january|february|march|april|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)";
const DATE_SOURCE = String.raw`(?:\b${WEEKDAY}s?\b|\b${MONTH}\.?\s+\d{1,2}(?:st|nd|rd|th)?\b|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?${MONTH}\b|\bMay\s+\d{1,2}\b|\b(?:today|tonight|tomorrow|yesterday|noon|midnight|eod|eow|eom|eoy|asap)\b|\b(?:this|next|last|coming|end of (?:the )?)\s*(?:week|month|quarter|year|weekend|sprint|${WEEKDAY})\b|\bend of (?:day|week|month|quarter|year|q[1-4])\b|\b[qh][1-4](?:\s+\d{4})?\b|\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}\/\d{1,2}(?:\/\d{2,4})?\b|\b${MONTH}\b(?:\s+\d{4})?)`;
export const DATE = new RegExp(DATE_SOURCE, "i");
const DATE_START = new RegExp(
  String.raw`^(?:(?:on|for|to|at|by|until|til)\s+)?(?:the\s+)?${DATE_SOURCE}`,
  "i",
);
export const DURATION =
  /\b\d+(?:\.\d+)?[\s-]?(?:business\s+)?(?:minutes?|hours?|days?|weeks?|months?|years?|quarters?|sprints?)\b/i;
const COUNT_SOURCE = String.raw`(?<![$€£¥\d.,:/-])\b\d[\d,]*(?:\.\d+)?\b(?!\s*%)(?!\s?(?:[kmb]|mm|million|billion|thousand)\b)(?![:/]\d)`;
export const COUNT = new RegExp(COUNT_SOURCE, "i");

/** Words that state where something stands; "X is delayed" is read as X's status. */
export const STATUS_WORDS = new Set([
  "delayed",
  "cancelled",
  "canceled",
  "on hold",
  "on track",
  "off track",
  "in planning",
  "planning",
  "under review",
  "in review",
  "approved",
  "rejected",
  "pending",
  "blocked",
  "completed",
  "complete",
  "done",
  "in progress",
  "underway",
  "active",
  "inactive",
  "paused",
  "live",
  "launched",
  "shipped",
  "closed",
  "open",
  "resolved",
  "at risk",
  "behind schedule",
  "ahead of schedule",
  "postponed",
  "suspended",
  "terminated",
  "finalized",
  "finalised",
  "signed",
  "confirmed",
  "in negotiation",
  "in development",
  "in testing",
  "in qa",
  "green",
  "yellow",
  "red",
  "rescheduled",
  "deferred",
  "withdrawn",
  "expired",
]);

const STATUS_LEAD = /^(?:now|currently|officially|still)\s+/i;
const STATUS_SPLIT = /[\s,.;:!()]+/;
const STATUS_FOLLOW =
  /^(?:[,(;:-]|\s+(?:due|because|since|as|for|until|till|pending|after|per|with|by|on|at|in|from|to|and|but|while|effective)\b)/;

/**
 * The status phrase a value is or opens with ("delayed", "cancelled due to …" → "cancelled"), or
 * null. A status word followed by a noun is not a status ("green theme").
 */
export function statusOf(value: string): string | null {
  const v = value
    .toLowerCase()
    .replace(STATUS_LEAD, "")
    .replace(/[.!]+$/, "")
    .trim();
  const words = v.split(STATUS_SPLIT);
  for (const len of [3, 2, 1]) {
    if (words.length < len) continue;
    const head = words.slice(0, len).join(" ");
    if (!STATUS_WORDS.has(head)) continue;
    if (v.length === head.length) return head;
    if (v.startsWith(head) && STATUS_FOLLOW.test(v.slice(head.length))) return head;
  }
  return null;
}

/** "May" alone (or with a year) as a value is the month; elsewhere the word is usually the modal. */
const MAY_VALUE = /^(?:(?:in|to|for|by|until)\s+)?(?:early\s+|mid-?\s*|late\s+)?May(?:\s+\d{4})?$/;

export function valueKind(value: string): ValueKind {
  if (MONEY.test(value)) return "money";
  if (PERCENT.test(value)) return "percent";
  if (statusOf(value)) return "status";
  if (DATE.test(value) || MAY_VALUE.test(value.trim())) return "date";
  if (DURATION.test(value)) return "duration";
  if (COUNT.test(value)) return "count";
  return "text";
}

/** True when the value opens with a date or time ("Thursday at 3pm", "for next week"). */
export function startsWithDate(value: string): boolean {
  return DATE_START.test(value);
}

const KIND_PATTERNS: Partial<Record<ValueKind, RegExp>> = {
  money: MONEY,
  percent: PERCENT,
  date: DATE,
  duration: DURATION,
  count: COUNT,
};

/** True when some part of the value is of the kind ("500 units of widgets" holds a count). */
export function containsKind(value: string, kind: ValueKind): boolean {
  const pattern = KIND_PATTERNS[kind];
  return pattern ? pattern.test(value) : false;
}

/**
 * A partial update: the first part of `value` of the given kind replaced by `replacement` ("500 units
 * to Chicago hub", count, "1500" → "1500 units to Chicago hub"). Null when no part is of that kind.
 */
export function replaceKind(value: string, kind: ValueKind, replacement: string): string | null {
  const pattern = KIND_PATTERNS[kind];
  if (!pattern) return null;
  const match = pattern.exec(value);
  if (!match) return null;
  return value.slice(0, match.index) + replacement + value.slice(match.index + match[0].length);
}

/** All money amounts in a text, normalized, for comparing "$200K" with "$200k". */
export function moneyAmounts(text: string): string[] {
  return [...text.matchAll(MONEY_G)].map((m) => m[0].toLowerCase().replace(/\s+/g, ""));
}

/** Slots whose values go stale with time: a newer statement replaces an older one (rule 4). */
const TIME_SENSITIVE_KEY =
  /(?:^|_)(?:price|pricing|cost|rate|quote|budget|fee|salary|amount|total|balance|revenue|forecast|status|state|phase|stage|count|quantity|headcount|inventory|stock|deadline|date|time|eta|launch|schedule|meeting|priority|level|score|version)(?:_|$)/;

export function isTimeSensitive(key: string, kind: ValueKind): boolean {
  return (
    kind === "money" ||
    kind === "percent" ||
    kind === "status" ||
    kind === "count" ||
    kind === "date" ||
    TIME_SENSITIVE_KEY.test(key)
  );
}

/** Same value for supersession purposes: case, spacing and trailing punctuation do not count. */
export function sameValue(a: string, b: string): boolean {
  return normalizeValue(a) === normalizeValue(b);
}

const PERCENT_G = new RegExp(PERCENT.source, "gi");

/** The amounts, percentages and bare counts a value states, normalized ("$85", "15%", "500"). */
export function figures(value: string): string[] {
  const money = moneyAmounts(value);
  const rest = value.replace(MONEY_G, " ");
  const percents = [...rest.matchAll(PERCENT_G)].map((m) => m[0].toLowerCase().replace(/\s+|percent/g, ""));
  const counts = [...rest.replace(PERCENT_G, " ").matchAll(new RegExp(COUNT_SOURCE, "gi"))].map((m) =>
    m[0].replace(/,/g, ""),
  );
  return [...money, ...percents.map((p) => (p.endsWith("%") ? p : `${p}%`)), ...counts];
}

/**
 * Both values state the same figures and at least one ("$85 per unit" and "$85 (DRAFT)"): the same
 * number, whatever is said around it.
 */
export function sameFigures(a: string, b: string): boolean {
  const fa = [...new Set(figures(a))].sort();
  const fb = [...new Set(figures(b))].sort();
  return fa.length > 0 && fa.length === fb.length && fa.every((f, i) => f === fb[i]);
}

/**
 * Values a reading must never store: evaluations and fillers that copular sentences produce ("This is
 * critical", "Monday is the one") rather than slot values.
 */
const NON_VALUES = new Set([
  "critical",
  "important",
  "essential",
  "crucial",
  "key",
  "vital",
  "urgent",
  "great",
  "good",
  "bad",
  "fine",
  "ok",
  "okay",
  "true",
  "false",
  "correct",
  "right",
  "wrong",
  "unclear",
  "interesting",
  "the one",
  "it",
  "that",
  "this",
  "them",
  "those",
  "these",
  "same",
  "the same",
  "unchanged",
  "possible",
  "impossible",
  "likely",
  "unlikely",
  "optional",
  "better",
  "worse",
  "best",
  "worst",
  "fine by me",
  "up to you",
  "the case",
  "the plan",
  "the goal",
  "the idea",
  "the problem",
  "the issue",
  "a problem",
  "an issue",
  "needed",
  "required",
  "necessary",
  "new",
  "new scope",
  "here",
  "there",
  "back",
  "next",
  "over",
  "ready",
  "available",
  "a go",
  "final",
  "settled",
  "on record",
  // "Let's make it happen", "we'll make it work": idioms, not a value given to "it".
  "happen",
  "work",
  "count",
]);

/**
 * Appraisals: what a copular sentence says about how the speaker finds something ("That bowl is
 * gorgeous", "Those colors are so vivid", "Drawing flowers is one of my faves") rather than a value
 * the thing holds. A degree word ("so", "such") before the predicate marks an appraisal by itself;
 * otherwise the predicate opens with an evaluative adjective, a superlative or a favourite.
 */
const DEGREE_LEAD = /^(?:so|such)\b/i;
const INTENSIFIER_LEAD =
  /^(?:(?:really|truly|super|amazingly|incredibly|totally|absolutely|extremely|quite|pretty|very|just|always|definitely|honestly|gonna be|going to be|all)\s+)+/i;
const APPRAISAL =
  /^(?:(?:a|an)\s+(?:(?:really|truly|super|very|huge|big)\s+)?(?:great|good|nice|lovely|wonderful|beautiful|amazing|awesome|fantastic|cool|fun|special|huge part|big part|source of)\b|(?:the|my|his|her|their|our|your)\s+(?:best|worst|fave|faves|favou?rite|favou?rites)\b|one of (?:my|his|her|their|our|your|the)\s+(?:fave|faves|favou?rite|favou?rites|best)\b|(?:awesome|amazing|great|gorgeous|beautiful|cute|cool|incredible|special|wonderful|fantastic|lovely|fun|nice|sweet|inspiring|powerful|meaningful|rewarding|calming|relaxing|soothing|important to|dear to|lucky|stoked|excited|thrilled|happy|glad|proud|brave|stunning|fancy|vivid|bright|bold|awful|terrible|sad|tough|scary|adorable|precious|perfect|brilliant|impressive|fascinating|hilarious|heartwarming|touching|breathtaking|unforgettable|priceless)\b)/i;

export function isAppraisal(value: string): boolean {
  const v = value.trim().replace(INTENSIFIER_LEAD, "");
  return DEGREE_LEAD.test(v) || APPRAISAL.test(v);
}

const VALUE_LEAD =
  /^(?:[:=\-\s]+|now\s+|currently\s+|officially\s+|still\s+|set\s+(?:to|at)\s+|going\s+to\s+be\s+|at\s+|just\s+|maybe\s+|perhaps\s+|possibly\s+|probably\s+)+/i;
const VALUE_TAIL =
  /(?:\s+|,\s*)(?:now|for now|right now|as of (?:today|now)|anymore|any more|though|too|as well|instead|then|currently|going forward|from now on|effective (?:immediately|today)|please|thanks|thank you|ok|okay|again|for real|at this point)$/i;
/**
 * How sure the speaker is, or an aside to the listener, said after the value: "$40k I think", "Friday
 * btw", "Acme Corp, honestly", "March 10 if all goes well". The value is the same without it. Hedges
 * that bound a figure ("at least", "roughly") only go when set off by a comma, as an afterthought: "at
 * least 3 reviewers" or "3 reviewers at least" keeps its bound.
 */
const ASIDE_TAIL =
  /(?:(?:\s+|,\s*)(?:i think|i believe|i guess|i suppose|i reckon|i'd say|i hope|hopefully|fingers crossed|btw|by the way|fyi|lol|haha|honestly|to be honest|tbh|iirc|afaik|if i remember (?:correctly|right)|if i recall (?:correctly|right)|as far as i know|if all goes (?:well|to plan)|if everything goes (?:well|to plan|according to plan)|if nothing changes|you know|or so|for sure|if i'm not mistaken|if i am not mistaken|as far as i can tell|last i (?:heard|checked))|,\s*(?:at least|give or take|more or less|roughly|approximately|or thereabouts|probably|apparently|maybe|perhaps|likely|supposedly))$/i;
/**
 * When the statement was made or the change happened, said after the value: "moved the launch to March
 * 10 yesterday", "switched to Postgres two days ago", "$50k as of this morning". The value is what holds,
 * not when it was said. A value that is nothing but the phrase ("the deadline is yesterday") stays
 * whole, and so does a date or time the phrase completes (cutTimeTail).
 */
const TIME_TAIL =
  /(?:\s+|,\s*)(?:(?:as of|starting|effective)\s+)?(?:yesterday|today|tonight|this (?:morning|afternoon|evening)|earlier(?: today| this (?:week|month|year))?|(?:just\s+)?recently|lately|just now|(?:(?:about|around|almost|over|nearly)\s+)?(?:a few|a couple(?: of)?|several|some|\d+|two|three|four|five|six|seven|eight|nine|ten|a|an) (?:minutes?|hours?|days?|weeks?|months?|years?|sprints?) ago|a while (?:ago|back)|last (?:night|week|month|quarter|year|weekend|sprint)|this (?:week|month|quarter|year|weekend|sprint)|this past (?:week|month|weekend|sprint)|these days|nowadays|as of (?:last |this past )?(?:mon|tues|wednes|thurs|fri|satur|sun)day)$/i;
/** A weekday, a clock time or a month without its day: "Friday last week", "4 AM tonight", "May this year". */
const OPEN_DATE_END = new RegExp(
  String.raw`(?:\b${WEEKDAY}s?|\b\d{1,2}(?::\d{2})?\s?(?:am|pm)|\b\d{1,2}:\d{2}|\b(?:noon|midnight)|\b${MONTH}\.?)$`,
  "i",
);
/** A month's day: a whole date, which only a year completes ("March 10 last year"). */
const DAY_END = new RegExp(
  String.raw`(?:\b${MONTH}\.?\s+\d{1,2}(?:st|nd|rd|th)?|\b\d{1,2}(?:st|nd|rd|th)?(?:\s+of)?\s+${MONTH})$`,
  "i",
);

/** The value without a trailing phrase that says when it was stated (TIME_TAIL), if anything remains. */
function cutTimeTail(value: string): string {
  const tail = TIME_TAIL.exec(value);
  if (!tail || tail.index === 0) return value;
  const rest = value.slice(0, tail.index).trim();
  if (!/[a-z0-9$€£¥%#]/i.test(rest)) return value;
  if (OPEN_DATE_END.test(rest)) return value;
  if (DAY_END.test(rest) && /\byears?\b/i.test(tail[0])) return value;
  return rest;
}

const VALUE_CUT =
  /\s*(?:,?\s+because\b|,?\s+since\b|,?\s+due to\b|,\s*which\b|,\s*so\b|\s+so that\b|,\s*but\b|,\s*and (?:i|we|you|they)\b|\.\.\.|…)/i;
const ADVERB_LEAD =
  /^(?:absolutely|really|very|quite|super|extremely|totally|so|pretty|truly|incredibly)\s+/i;
const MAX_VALUE_LENGTH = 160;

/**
 * Cleans a raw value: leading "now"/"set to", trailing "now"/"instead", a "because …" explanation and
 * wrapping quotes go. Returns null when nothing storable remains.
 */
export function cleanValue(raw: string): string | null {
  let value = raw.trim();
  const cut = VALUE_CUT.exec(value);
  if (cut && cut.index > 0) value = value.slice(0, cut.index);
  value = value.replace(/[.!;:,]+$/, "").trim();
  for (let i = 0; i < 3; i++) {
    let next = value
      .replace(VALUE_LEAD, "")
      .replace(VALUE_TAIL, "")
      .replace(ASIDE_TAIL, "")
      .replace(/[.!;:,]+$/, "")
      .trim();
    next = cutTimeTail(next)
      .replace(/[.!;:,]+$/, "")
      .trim();
    if (next === value) break;
    value = next;
  }
  value = value.replace(/^["'`]+|["'`]+$/g, "").trim();
  if (!value || value.length > MAX_VALUE_LENGTH) return null;
  const lower = value.toLowerCase();
  if (NON_VALUES.has(lower) || NON_VALUES.has(lower.replace(ADVERB_LEAD, ""))) return null;
  if (/^(?:not|n't|never|no longer)\b/i.test(value)) return null;
  if (!/[a-z0-9$€£¥%#]/i.test(value)) return null;
  return value;
}
