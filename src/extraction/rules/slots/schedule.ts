import { cleanValue, DATE, startsWithDate } from "../values";
import { reading, type SlotReading } from "./reading";
import { subjectKey } from "./subject-keys";

/** "Let's do the meeting Thursday at 3pm": the scheduled thing is the slot, the date its value. */

const SCHEDULE =
  /(?:^|\b(?:let'?s|let us|we'?ll|we will|please|can we|i'?ll|i will|we should|we need to|i need to|we can|we)\s+)(?:schedule|book|set|move|reschedule|push|hold|have|do|plan|put|arrange|make)\s+(?:the|our|a|an|my|this)\s+(.+)$/i;

export function scheduleReading(clause: string): SlotReading | null {
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

/**
 * A thing named by its date ("a September 1 move-in", "the March launch"): the thing is the slot. The
 * verb form says the same of the same slot ("we can move in August 15" → move_in), so the two
 * wordings are one slot. Verbs that schedule nothing ("we'll be there Monday", "I'll see you Friday")
 * are left alone.
 */
const DATED_NOUN = new RegExp(
  String.raw`^(?:a|an|the|our|my)\s+(${DATE.source})\s+([a-z]+(?:-[a-z]+)?)(?:\s+(?:ideally|then|now|please|probably|hopefully|at the (?:earliest|latest)|or so|at best))?$`,
  "i",
);
const MODAL_VERB_DATE = new RegExp(
  String.raw`^(?:so\s+|and\s+|then\s+|now\s+)?(?:we|i)(?:'ll|\s+will|\s+can|\s+could|\s+are going to|\s+am going to|\s+plan to)\s+([a-z]+)(?:\s+(in|out|off|back|up))?\s+(?:on\s+)?(${DATE.source})$`,
  "i",
);
const NOT_SCHEDULED =
  /^(?:be|have|do|get|go|see|talk|chat|catch|hear|know|think|let|try|check|call|text|email|ping|look|ask|tell|say|need|want|keep|make|take|give)$/i;

export function datedReading(clause: string): SlotReading | null {
  const noun = DATED_NOUN.exec(clause);
  if (noun) {
    const subject = subjectKey(noun[2] ?? "");
    const v = cleanValue(noun[1] ?? "");
    return subject && !subject.generic && v ? reading("schedule", subject.key, v) : null;
  }
  const verb = MODAL_VERB_DATE.exec(clause);
  if (!verb || NOT_SCHEDULED.test(verb[1] ?? "")) return null;
  const v = cleanValue(verb[3] ?? "");
  const key = [verb[1], verb[2]].filter(Boolean).join("_").toLowerCase();
  return v ? reading("schedule", key, v) : null;
}
