import { isTitle } from "../speaker";
import { snake } from "../text";
import { isAppraisal, statusOf } from "../values";
import { reading, type SlotReading, value } from "./reading";
import { NP, STATUS_HEADS, statusKey, subjectKey } from "./subject-keys";

/** "The project budget is $50,000": a subject, a form of "to be", a value (a status gets `_status`). */

const COPULA = new RegExp(
  String.raw`^${NP}\s+(is|are|will be|would be|could be|might be|should be|has become|have become|becomes|become|remains|remain|stays|stay|was|were|has been|have been|is going to be|are going to be|is set to|are set to)\s+(?:now\s+|currently\s+|still\s+|officially\s+)?(.+)$`,
  "i",
);
/** "is excluding …": a verb in progress. A name joined on ("staging-02", "testing_env") is a value. */
const PROGRESSIVE = /^[a-z]+ing\b(?![-_./\d])/i;
/**
 * "Title's 'Night Ferry' now", "Budget's now $12k": "'s" is "is" when "now" marks the new value. Without
 * "now" the "'s" may be a possessive ("Sam's car"), so it is not read.
 */
const CONTRACTED = new RegExp(String.raw`^${NP}'s\s+(?:now\s+(.+)|(.+?)\s+now\b.*)$`, "i");
/** A value that carries a verb of its own is a possessive's clause ("Sam's car is now red"), not a value. */
const VERB_IN_VALUE = /\b(?:is|are|was|were|has|have|had|will|would|can|does|did)\b/;
/** What reads as a value after "X's": a quotation, a figure, a name or a determined noun ("Anna's idea now" is not one). */
const VALUE_LIKE = /^(?:["'\u2018\u201c]|[$\u20ac\u00a3]|\d|[A-Z]|(?:the|a|an)\s)/;

/**
 * Predicates that are the value of an attribute of whoever they are said of: "I'm vegetarian now" and
 * "My sister is vegan" state a diet, the speaker's (`diet`) and the sister's (`sister_diet`), two slots.
 */
const ATTRIBUTE_PREDICATES: { attribute: string; words: RegExp }[] = [
  {
    attribute: "diet",
    words:
      /^(?:a\s+|an\s+|strictly\s+|fully\s+|mostly\s+)?(?:vegetarian|vegan|pescatarian|pescetarian|keto|paleo|gluten[- ]free|dairy[- ]free|kosher|halal|omnivore|flexitarian|plant[- ]based)$/i,
  },
];
const FIRST_PERSON = /^(?:i'm|i am|im)\s+(?:now\s+|actually\s+|officially\s+)?([^,;]+)/i;

function predicateAttribute(v: string): string | null {
  return ATTRIBUTE_PREDICATES.find((p) => p.words.test(v))?.attribute ?? null;
}

/** "I'm vegetarian now": the speaker's own attribute, when the predicate names which one. */
function firstPersonReading(clause: string): SlotReading | null {
  const m = FIRST_PERSON.exec(clause);
  const v = m ? value(m[1]) : null;
  const attribute = v ? predicateAttribute(v) : null;
  return v && attribute ? reading("copula", attribute, v, { exact: true }) : null;
}

/** "It's net 15 for them": a pronoun and a value; only a term the value shares with a slot finds its slot. */
const PRONOUN_COPULA =
  /^(?:also\s+|and\s+|actually\s+)?(?:it|that)(?:'s|\s+is)\s+(?:now\s+|actually\s+)?(.+)$/i;
const FOR_WHOM = /\s+for\s+(?:them|us|him|her|me|you|this one|that one)\b.*$/i;

export function copulaReading(clause: string): SlotReading | null {
  const m = COPULA.exec(clause);
  if (!m) return contractedReading(clause) ?? firstPersonReading(clause) ?? pronounReading(clause);
  const verb = (m[2] ?? "").toLowerCase();
  const v = value(m[3]);
  if (!v) return null;
  // "That cup is so cute": how the speaker finds the thing, not a value it holds.
  if (isAppraisal(m[3] ?? v)) return null;
  // "is excluding …", "are trying …": a verb in progress, not a value.
  if (PROGRESSIVE.test(v) && !statusOf(v)) return null;
  const subject = subjectKey(m[1] ?? "");
  // "A deal is a deal", "rules are rules": a saying, not a value.
  if (subject && subject.key === subjectKey(v)?.key) return null;
  const historical = verb === "was" || verb === "were";
  const modal = /^(?:would|could|might|should) be$/.test(verb);
  if (!subject) {
    // "Our CTO is Priya Shah": who holds a role. A title alone is no slot name otherwise ("The CFO is
    // firm on this" says how the CFO stands, not who the CFO is).
    const role = roleOf(m[1] ?? "", v);
    if (role) return reading("copula", role, v, { historical, modal });
    // "Your $200K is now $140K" names its slot by the old value; "it's net 15" by a term.
    return pronounReading(clause);
  }
  if (subject.generic) return reading("copula", null, v, { historical, modal, change: true });
  const attribute = predicateAttribute(v);
  if (attribute)
    return reading("copula", `${subject.key}_${attribute}`, v, { historical, modal, exact: true });
  const status = statusOf(v);
  const key = status && !STATUS_HEADS.test(subject.key) ? statusKey(subject.key) : subject.key;
  return reading("copula", key, v, { historical, modal });
}

function contractedReading(clause: string): SlotReading | null {
  const m = CONTRACTED.exec(clause);
  if (!m) return null;
  const raw = m[2] ?? m[3] ?? "";
  if (VERB_IN_VALUE.test(raw) || !VALUE_LIKE.test(raw.trim())) return null;
  const v = value(raw);
  const subject = subjectKey(m[1] ?? "");
  if (!v || !subject || subject.generic || isAppraisal(raw)) return null;
  return reading("copula", subject.key, v, { change: true });
}

function pronounReading(clause: string): SlotReading | null {
  const m = PRONOUN_COPULA.exec(clause);
  const v = m ? value((m[1] ?? "").replace(FOR_WHOM, "")) : null;
  return v ? reading("copula", null, v, { change: true, termOnly: true }) : null;
}

const ROLE_LEAD = /^(?:(?:the|our|my|your|their|his|her|its|new|current|acting|interim)\s+)+/i;
/** A person's name: one to three capitalised words ("Priya", "Priya Shah", "Mary-Ann O'Neil"). */
const PERSON_NAME = /^[A-Z][a-z'\u2019-]+(?:\s+[A-Z][a-z'\u2019-]+){0,2}$/;

/** The role a title names when a person's name is said to hold it ("Our CTO is Priya"), as a key. */
function roleOf(subject: string, v: string): string | null {
  const title = subject.trim().replace(ROLE_LEAD, "");
  if (!title || /\s/.test(title) || !isTitle(title) || !PERSON_NAME.test(v)) return null;
  return snake(title.toLowerCase()) || null;
}
