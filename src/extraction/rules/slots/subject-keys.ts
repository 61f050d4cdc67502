import { singular } from "../../../entities/slot-attribute";
import { isTitle } from "../speaker";
import { snake } from "../text";
import { MONEY, startsWithDate } from "../values";

/**
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
  // Words that open a clause, not a noun phrase: contracted pronouns ("they've been like family"),
  // subordinators and hedges ("even when times are hard", "maybe this is the change"), how the speaker
  // finds something ("glad your son is okay", "sounds like your work is"), and a phrasal verb's
  // particle ("set up my app to use 3 workers" is no slot "up my app").
  ...["i", "we", "you", "they", "he", "she"].flatMap((p) => [`${p}'ve`, `${p}'d`, `${p}'ll`]),
  "ive",
  "even",
  "maybe",
  "perhaps",
  "though",
  "although",
  "while",
  "since",
  "unless",
  "until",
  "whether",
  "once",
  "glad",
  "sorry",
  "sure",
  "hope",
  "sounds",
  "seems",
  "looks",
  "feels",
  "seeing",
  "keep",
  "up",
  "down",
  "out",
  "off",
  "over",
  "into",
  "about",
  "with",
  "from",
  "given",
  "regarding",
]);
/** A phrase that ends on a conjunction or an adverb was cut from a longer clause ("keep going and"). */
const CLAUSE_TAIL = /^(?:and|or|but|nor|again|too|also|still|even|so|then|just|really|actually)$/i;
/** Subjects so generic that the slot must come from the value instead ("The actual value is $120,000"). */
const GENERIC_SUBJECTS = new Set(["value", "number", "figure", "amount", "total", "answer", "result"]);
/** Words a clause has inside it and a slot's name does not: pronouns, modals, question words. */
const INNER_PRONOUN =
  /^(?:i|we|you|they|he|she|i'm|we're|you're|they're|us|me|him|them|myself|ourselves|yourself|can|could|would|will|should|must|might|do|does|did|how|what|why)$/i;
export const STATUS_HEADS = /(?:^|_)(?:status|state|phase|stage)$/;
const OF_PHRASE = /^(.+?)\s+(?:of|for)\s+(?:the\s+|our\s+|this\s+|my\s+)?(.+)$/i;
const SUBJECT_TOKEN = /^[a-z0-9#][a-z0-9#&'/+-]*$/i;

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
  // "Best we can do", "The product I received", "These chats help us": a clause, not a slot name.
  if (words.some((w) => INNER_PRONOUN.test(w))) return null;
  if (CLAUSE_TAIL.test(words[words.length - 1] ?? "")) return null;
  if (words.length === 1 && isTitle(first)) return null;
  const of = OF_PHRASE.exec(subject);
  if (of && (of[1] ?? "").split(/\s+/).length <= 2) subject = `${of[2]} ${of[1]}`;
  const key = snake(subject);
  if (!key) return null;
  return { key: KEY_ALIASES[key] ?? key, generic: false };
}

export function statusKey(key: string): string {
  return STATUS_HEADS.test(key) ? key : `${key}_status`;
}

/** "X for (the) Y" → value X, qualifier Y; time phrases ("for now", "for next week") are not qualifiers. */
const FOR_QUALIFIER =
  /^(.+?)\s+for\s+(?:the\s+|our\s+|this\s+|all\s+|my\s+)?([a-z][\w-]*(?:\s+[a-z][\w-]*){0,2})$/i;
const NOT_QUALIFIER =
  /^(?:now|today|tomorrow|good|real|sure|example|instance|once|free|me|us|you|them|everyone|a while|the moment|next|this|last|that|it|starters|sale)\b/i;

export function splitQualifier(value: string): { value: string; qualifier: string | null } {
  const match = FOR_QUALIFIER.exec(value);
  if (!match) return { value, qualifier: null };
  const qualifier = (match[2] ?? "").trim();
  if (NOT_QUALIFIER.test(qualifier) || startsWithDate(qualifier) || /\d/.test(qualifier)) {
    return { value, qualifier: null };
  }
  return { value: (match[1] ?? "").trim(), qualifier };
}

/** A subject noun phrase inside a clause pattern: up to six words, the shortest that lets the rest match. */
export const NP = String.raw`([A-Za-z#][\w#&'/+-]*(?:\s+[A-Za-z0-9#][\w#&'/+-]*){0,5}?)`;
/** Objects that name no slot ("send it to …", "cancel that"): the slot comes from a family instead. */
export const PRONOUN_OBJECT = /^(?:it|them|this|that|these|those|everything|all)$/i;
