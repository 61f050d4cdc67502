import { MONEY } from "../values";
import { reading, type SlotReading } from "./reading";

/**
 * An amount asked for: "Asking fifteen grand", "we should ask for twenty thousand", "we're requesting
 * $12,500". The slot is the request; an amount in words is stored in figures ("$15,000"), so the
 * assistant's "$15,000" repeats it.
 */

/** Numbers written as one word, below twenty. */
export const UNITS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
};
const TENS: Record<string, number> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};
const SCALES: Record<string, number> = {
  hundred: 100,
  thousand: 1000,
  grand: 1000,
  k: 1000,
  million: 1_000_000,
};
const NUMBER_WORD = `(?:${[...Object.keys(TENS), ...Object.keys(UNITS)].join("|")})`;
const SPELLED = new RegExp(
  String.raw`\b(?:a|${NUMBER_WORD}(?:[\s-]${NUMBER_WORD})?)(?:\s+hundred)?\s+(?:thousand|grand|million)\b`,
  "i",
);

/** "fifteen grand" → 15000, "twenty-five thousand" → 25000, "a million" → 1000000; null otherwise. */
export function spelledAmount(text: string): number | null {
  const m = SPELLED.exec(text);
  if (!m) return null;
  let value = 0;
  let part = 0;
  for (const word of m[0].toLowerCase().split(/[\s-]+/)) {
    if (word === "a") part = 1;
    else if (UNITS[word] !== undefined) part += UNITS[word];
    else if (TENS[word] !== undefined) part += TENS[word];
    else if (word === "hundred") part *= 100;
    else if (SCALES[word] !== undefined) {
      value += part * (SCALES[word] as number);
      part = 0;
    }
  }
  return value + part || null;
}

const ASKING = new RegExp(
  String.raw`(?:^|\b(?:we|i|we're|we are|i'm|i am|they|they're)\s+(?:should\s+|will\s+|'ll\s+|want to\s+|plan to\s+|are\s+)?)(?:ask|asking|request|requesting)\s+(?:for\s+)?(${MONEY.source}|${SPELLED.source})`,
  "i",
);

export function askingReading(clause: string): SlotReading | null {
  const m = ASKING.exec(clause);
  if (!m?.[1]) return null;
  const spelled = spelledAmount(m[1]);
  const amount = spelled !== null ? `$${String(spelled).replace(/\B(?=(\d{3})+(?!\d))/g, ",")}` : m[1].trim();
  return reading("money_noun", "request", amount);
}
