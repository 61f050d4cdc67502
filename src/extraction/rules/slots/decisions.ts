import { cleanValue, valueKind } from "../values";
import { reading, type SlotReading } from "./reading";
import { KEY_ALIASES, keyHead, splitQualifier, subjectKey } from "./subject-keys";

/** What the speakers decide, go with, are thinking about or prefer: decisions, choices, plans, preferences. */

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

export function decisionReading(clause: string): SlotReading | null {
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

export function choiceReading(clause: string): SlotReading | null {
  const m = CHOICE_WITH.exec(clause) ?? CHOICE_USE.exec(clause);
  if (!m) return null;
  const split = splitQualifier((m[1] ?? "").replace(/\s+then\b/i, ""));
  if (!split.qualifier) return null;
  const subject = subjectKey(split.qualifier);
  const v = cleanValue(split.value);
  if (!subject || !v) return null;
  return reading("choice", subject.key, v);
}

export function tentativeReading(clause: string): SlotReading | null {
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

export function preferenceReading(clause: string): SlotReading | null {
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
