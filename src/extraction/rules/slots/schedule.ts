import { cleanValue, startsWithDate } from "../values";
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
