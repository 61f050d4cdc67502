import { findSecrets } from "../classification";
import { valueKind } from "../values";
import { askingReading } from "./asking";
import { changeReading } from "./change";
import { copulaReading } from "./copula";
import { choiceReading, decisionReading, preferenceReading, tentativeReading } from "./decisions";
import { finalizeReading, moneyNounReading, splitCompound } from "./figures";
import { labelReading } from "./label";
import { reading, type SlotReading } from "./reading";
import { datedReading, scheduleReading } from "./schedule";
import { standInReading } from "./stand-in";
import { haltReading, statusReading } from "./status";

/** "The budget is: $50,000" reads as "The budget is $50,000". */
const COPULA_COLON = /\b(is|are|was|were|be)\s*:\s+/gi;

/**
 * Where a sentence joins two statements: ", so …", ", and …", ", but …", or "and the …". A sentence no
 * pattern reads as a whole ("Good news, we found a sponsor, so the budget is $9k") is read part by part.
 */
const COORDINATION = /,\s+(?:so|and|but)\s+|\s+and\s+(?=(?:the|our|my|their|his|her)\s)/i;

/** Characters past which a clause is a run-on, not a slot statement. */
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
  // "Helen had to cancel, but Marco is stepping in" spans the clause's parts: read whole, first.
  const standIn = standInReading(clause);
  if (standIn) return [...out, standIn];
  // "The hotel cap is $200 and the food cap is $50": two statements, each naming its slot, each read
  // on its own; anything less is read as one clause first.
  const parts = clause.split(COORDINATION).filter((p) => p.trim());
  if (parts.length > 1) {
    const each = parts.map((part) => readSlots(part, depth + 1));
    if (each.every((r) => r.length > 0 && r.every((x) => x.kind === "copula" && x.subject !== null)))
      return [...out, ...each.flat()];
  }
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
    datedReading(clause) ??
    finalizeReading(clause) ??
    moneyNounReading(clause) ??
    askingReading(clause) ??
    copulaReading(clause) ??
    statusReading(clause);
  if (found) {
    out.push(...(found.kind === "copula" ? splitCompound(found) : [found]));
    return out;
  }
  // "This is confidential, do not share outside HR: Sarah's salary is $120k" states after the colon.
  const colon = clause.indexOf(": ");
  if (colon > 0 && colon < clause.length - 2) return readSlots(clause.slice(colon + 2), depth + 1);
  if (parts.length > 1) for (const part of parts) out.push(...readSlots(part, depth + 1));
  else out.push(...splicedReadings(clause));
  return out;
}

/**
 * "We're set on the blue one, dealer quote is $21,500": two statements spliced by a comma, which no
 * pattern reads whole. Only a part that names its own subject, says what it is now ("is", not "was")
 * and gives it a figure, a date or a time is read: an aside between commas ("my family are my rocks",
 * "the trip was insane", "his name is Kyle") is talk, not a slot value.
 */
function splicedReadings(clause: string): SlotReading[] {
  const parts = clause.split(/,\s+/);
  if (parts.length < 2) return [];
  const out: SlotReading[] = [];
  for (const part of parts.slice(1)) {
    const found = copulaReading(part);
    const figure = found !== null && valueKind(found.value) !== "text";
    if (found?.subject && figure && !found.termOnly && !found.historical && !found.modal)
      out.push(...splitCompound(found));
  }
  return out;
}
