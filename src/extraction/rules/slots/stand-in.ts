import { reading, type SlotReading } from "./reading";

/**
 * A person who drops out and the one who takes their place: "Helen had to cancel, but Marco Pellegrini
 * is stepping in", "Dana pulled out; Sam Ortiz will fill in". The slot is whichever holds the first
 * person's name (found by that name, as a correction finds its slot by the value it replaces), and only
 * the name in it changes. Both halves must be in the clause: a cancellation alone names no successor,
 * and a stand-in alone names no one replaced.
 */
const NAME = String.raw`[A-Z][a-z]+(?:\s+[A-Z][a-z]+){0,2}`;
const DROPS_OUT = new RegExp(
  String.raw`\b(${NAME})\s+(?:had to cancel|has to cancel|cancell?ed|dropped out|pulled out|backed out|bowed out|can't make it|cannot make it|can no longer make it)\b`,
);
const STANDS_IN = new RegExp(
  String.raw`\b(${NAME})(?:\s+(?:from|of|at)\s+[^,;]{1,60}?)?\s+(?:is|will be|'s|was)\s+(?:stepping in|filling in|standing in|subbing in|taking (?:her|his|their) (?:place|spot)|taking over)\b`,
);
const WILL_STAND_IN = new RegExp(
  String.raw`\b(${NAME})\s+(?:will|'ll|can)\s+(?:step in|fill in|stand in|sub in|take (?:her|his|their) (?:place|spot)|take over)\b`,
);

export function standInReading(clause: string): SlotReading | null {
  const out = DROPS_OUT.exec(clause);
  if (!out) return null;
  const rest = clause.slice(out.index + out[0].length);
  const successor = STANDS_IN.exec(rest) ?? WILL_STAND_IN.exec(rest);
  const replaced = out[1];
  const name = successor?.[1];
  if (!replaced || !name || name === replaced) return null;
  return reading("change", null, name, { change: true, oldValue: replaced, standIn: true });
}

/**
 * The value with the named person replaced: the whole name the value gives them ("Dr. Helen Yoo" for
 * "Helen") becomes the successor's; null when the value does not name them.
 */
export function replacePerson(
  value: string,
  replaced: string,
  successor: string,
): { value: string; name: string } | null {
  const m = new RegExp(
    String.raw`(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.?\s+)?\b(${replaced}(?:\s+[A-Z][a-z]+){0,2})\b`,
  ).exec(value);
  if (!m?.[1]) return null;
  return { value: value.slice(0, m.index) + successor + value.slice(m.index + m[0].length), name: m[1] };
}
