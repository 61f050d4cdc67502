import { cleanValue } from "../values";
import { reading, type SlotReading } from "./reading";
import { subjectKey } from "./subject-keys";

/**
 * "Budget: $50,000", "Draft pricing: $85 per unit": a label names the slot. Labels that are not slot
 * names ("Note:", "Carl: MongoDB would be better") are skipped, and the dispatcher reads what follows.
 */

const LABEL = /^([A-Za-z][\w' &/#+-]{0,40}?)\s*(?:\(([^)]{1,40})\))?\s*:\s+(.+)$/;
/**
 * A label that says what the slot is and then why ("Loaner laptop for Farah while hers is repaired:
 * LT-0931"): the clause after a subordinating word, then a second prepositional phrase, are cut, and
 * what is left is read as the label.
 */
const LONG_LABEL = /^([A-Za-z][\w' &/#+-]{41,100}?)\s*:\s+(.+)$/;
const SUBORDINATE = /\s+(?:while|because|since|when|until|after|before|as|if|so)\b.*$/i;
const SECOND_PHRASE = /^(\S+(?:\s+\S+){1,3}?\s+(?:for|of)\s+\S+)\s+(?:in|at|on|from|with|during)\b.*$/i;

function shortened(clause: string): string | null {
  const m = LONG_LABEL.exec(clause);
  if (!m) return null;
  let label = (m[1] ?? "").replace(SUBORDINATE, "");
  label = SECOND_PHRASE.exec(label)?.[1] ?? label;
  return label.length <= 41 && label !== m[1] ? `${label}: ${m[2]}` : null;
}
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

export function labelReading(clause: string): SlotReading | "skip" | null {
  const m = LABEL.exec(clause) ?? LABEL.exec(shortened(clause) ?? "");
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
