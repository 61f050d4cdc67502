import { cleanValue, MONEY } from "../values";
import { reading, type SlotReading, value } from "./reading";
import { NP, PRONOUN_OBJECT, splitQualifier, subjectKey } from "./subject-keys";

/**
 * Corrections and changes: "make that …", "switch from X to Y", "replace X with Y", "go back to X",
 * "the budget was cut to …", "ship it to …". Most name no slot; the reading says how to find it
 * (the value replaced, a value held before, a family, or the attribute a partial update names).
 */

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
  /\b(?:switch(?:ed|ing)?|swap(?:ped|ping)?|migrat(?:e|ed|ing)|transition(?:ed|ing)?|pivot(?:ed|ing)?|mov(?:e|ed|ing)|chang(?:e|ed|ing))\s+(?:(?:her|him|them|us|me)\s+)?(?:over\s+)?to\s+(.+?)(?:,?\s+(?:instead(?:\s+of\s+(.+))?|rather than\s+(.+)))?$/i;
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
const WENT_FROM = new RegExp(
  String.raw`^${NP}\s+(?:went|dropped|rose|fell|increased|decreased|moved|changed|jumped|grew|shrank|was cut|was raised|was moved|has gone)\s+from\s+(.+?)\s+to\s+(.+)$`,
  "i",
);
const PARTICIPLE_CHANGE = new RegExp(
  String.raw`^${NP}\s+(?:is\s+|are\s+|has been\s+|have been\s+|was\s+|were\s+|got\s+|been\s+|just\s+|now\s+)?(capped|set|fixed|limited|locked|frozen|reduced|raised|increased|cut|lowered|moved|pushed|changed|updated|revised|extended|bumped|shifted|delayed|postponed|rescheduled|pulled in|brought forward)\s+(?:back\s+)?(?:to|at|until|till)\s+(.+)$`,
  "i",
);
const CHANGE_PARTICIPLES =
  /^(?:moved|pushed|changed|updated|revised|bumped|shifted|rescheduled|pulled in|brought forward|reduced|raised|increased|cut|lowered|extended|delayed|postponed)$/i;
const DESTINATION =
  /\b(?:[Ss]hip|[Ss]end|[Dd]eliver|[Mm]ail|[Rr]oute|[Ff]orward|[Dd]ispatch|[Rr]edirect|[Pp]ost)\s+(?:the\s+|our\s+|my\s+|this\s+|that\s+)?([a-z][\w'-]*(?:\s+[a-z][\w'-]*)?)\s+to\s+(?:the\s+)?([A-Z][\w'.&-]*(?:\s+[A-Z0-9][\w'.&-]*){0,3})/;

export function changeReading(clause: string): SlotReading | null {
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
    const weak = !/\b(?:switch|swap|migrat|transition|pivot)|\binstead\b|\brather than\b/i.test(m[0]);
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

function participleChangeReading(clause: string): SlotReading | null {
  const m = PARTICIPLE_CHANGE.exec(clause);
  if (!m) return null;
  const subject = subjectKey(m[1] ?? "");
  const v = value(m[3]);
  if (!subject || subject.generic || !v) return null;
  return reading("change", subject.key, v, { change: CHANGE_PARTICIPLES.test(m[2] ?? "") });
}
