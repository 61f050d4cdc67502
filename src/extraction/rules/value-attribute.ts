import { DATE, MONEY, statusOf } from "./values";

/**
 * Which attribute of a thing a value states, when its words say so for sure. "The volunteer
 * breakfast is at 8am on Saturday", "… moved to the Copper Kettle" and "… is paid by the foundation"
 * say three things of one breakfast: its time, its place and who pays. A slot is a thing plus an
 * attribute, so they are three slots, and a later value of one never supersedes another.
 *
 * The attribute is read from the kind of value and the words that carry it: a date or a time is
 * when; an amount is what it costs; an agent after a participle ("paid by", "hosted by") is who does
 * that; a name of a place or a venue noun ("the Copper Kettle", "the back room") is where. A value that
 * mixes two of them ("noon at the Olive Tree"), or says none for sure ("a potluck", "cancelled",
 * "Sprint 14"), has no attribute here: the caller then keeps to the slot its subject names.
 */
export type ValueAttribute =
  | "time"
  | "location"
  | "cost"
  | "payer"
  | "host"
  | "lead"
  | "organizer"
  | "caterer"
  | "presenter";

/** Participles whose agent fills an attribute of the thing ("paid by the foundation" → payer). */
const AGENT: Record<string, ValueAttribute> = {
  paid: "payer",
  covered: "payer",
  funded: "payer",
  sponsored: "payer",
  expensed: "payer",
  bankrolled: "payer",
  "picked up": "payer",
  hosted: "host",
  led: "lead",
  run: "lead",
  chaired: "lead",
  facilitated: "lead",
  moderated: "lead",
  organized: "organizer",
  organised: "organizer",
  arranged: "organizer",
  coordinated: "organizer",
  catered: "caterer",
  presented: "presenter",
};
const AGENT_VALUE = new RegExp(String.raw`^(${Object.keys(AGENT).join("|")})\s+(?:for\s+)?by\s+\S`, "i");
/** "on us", "on the company": who a cost falls on. */
const ON_PAYER =
  /^on\s+(?:us|me|him|her|them|the house|the (?:company|firm|organi[sz]ation|department|team|office|client|school|foundation)\b)/i;

/** Words of time that are no calendar date ("the afternoon", "the spring"). */
const TIME_WORD =
  /\b(?:morning|afternoon|evening|lunchtime|dinnertime|breakfast time|weekend|spring|summer|autumn|winter|later|earlier|sooner)\b/i;
const DATE_G = new RegExp(DATE.source, "gi");
const TIME_WORD_G = new RegExp(TIME_WORD.source, "gi");

/** Nouns naming a place something happens in, written in lower case ("the back room", "my place"). */
const VENUE_NOUN =
  /\b(?:room|hall|office|offices|cafe|café|restaurant|bar|pub|diner|bistro|grill|tavern|canteen|cafeteria|kitchen|lounge|lobby|rooftop|terrace|patio|garden|park|hotel|inn|lodge|cabin|venue|studio|library|auditorium|theater|theatre|gym|campus|building|floor|headquarters|hq|warehouse|site|center|centre|clubhouse|club|place|house|apartment|flat|church|school|beach|court|field|arena|stadium|gallery|museum|basement|garage|annex|wing|suite|boardroom)\b/i;
/** Capitalised heads that name a stage, a version or a placeholder, not a place ("Sprint 14", "TBD"). */
const NOT_PLACE =
  /\b(?:sprint|phase|stage|step|version|release|milestone|tier|plan|level|round|edition|iteration|wave|cohort|batch|week|day|option|tbd|tba|tbc|n\/a)\b/i;
const DETERMINER = /^(?:the|a|an|our|my|your|their|his|her)\s+/i;
const CONNECTOR = /^(?:of|and|&|on|the|de|la|at|du|del|von|van)$/i;
/** Prepositions left at the edges once the date is taken out ("noon on Friday" leaves "on"). */
const EDGE_WORDS =
  /^(?:\s|on|at|in|by|for|from|to|until|til|and|,)+|(?:\s|on|at|in|by|for|from|to|until|til|and|,)+$/gi;

/** A place's name ("the Copper Kettle", "Room 4B") or a phrase around a venue noun ("the back room"). */
function placeLike(text: string): boolean {
  const v = text.trim();
  if (!v || NOT_PLACE.test(v) || statusOf(v)) return false;
  if (VENUE_NOUN.test(v)) return true;
  const words = v.replace(DETERMINER, "").split(/\s+/);
  if (words.length > 6 || !/^[A-Z]/.test(words[0] ?? "")) return false;
  return words.every((w) => /^[A-Z0-9]/.test(w) || CONNECTOR.test(w));
}

/** The attribute this value states of its thing, or null when its words do not say for sure. */
export function valueAttribute(value: string): ValueAttribute | null {
  const v = value.trim();
  const time = DATE.test(v) || TIME_WORD.test(v);
  const money = MONEY.test(v);
  const agent = AGENT_VALUE.exec(v);
  if (agent || ON_PAYER.test(v)) {
    if (time || money) return null;
    return agent ? (AGENT[(agent[1] ?? "").toLowerCase()] ?? null) : "payer";
  }
  if (statusOf(v)) return null;
  // What is left once the date and the time words are taken out tells whether a place is there too.
  const rest = v.replace(DATE_G, " ").replace(TIME_WORD_G, " ").replace(EDGE_WORDS, "").trim();
  const place = placeLike(time ? rest : v);
  const found = [time && "time", money && "cost", place && "location"].filter(Boolean);
  return found.length === 1 ? (found[0] as ValueAttribute) : null;
}

/** Words that could hold or stand for a time or an amount ("two weeks out", "TBD", "free"). */
const MAYBE: Partial<Record<ValueAttribute, RegExp>> = {
  time: /\d|\b(?:days?|weeks?|months?|years?|quarters?|sprints?|hours?|minutes?|soon|later|earlier|before|after|asap|tbd|tba|tbc|pending|undecided|unknown|now|then|once|when|until|till)\b/i,
  cost: /\d|\b(?:free|cost|costs|price|budget|dollars?|euros?|pounds?|cheap|expensive|paid|tbd|tba|tbc|pending|undecided|unknown)\b/i,
};

/**
 * Whether a value whose words state no attribute is surely not of this one: "a potluck" is no time
 * and no amount, while "two weeks out", "Sprint 14" or "TBD" may be the time in other words. A place
 * or a person can be named by any word, so nothing is surely not one.
 */
export function surelyNot(value: string, attribute: ValueAttribute): boolean {
  const maybe = MAYBE[attribute];
  return (
    maybe !== undefined &&
    !valueAttribute(value) &&
    !DATE.test(value) &&
    !TIME_WORD.test(value) &&
    !maybe.test(value)
  );
}

/** Last words of a key that name the attribute it holds ("launch_date", "offsite_venue"). */
const KEY_WORDS: Record<string, ValueAttribute> = {
  time: "time",
  date: "time",
  day: "time",
  deadline: "time",
  eta: "time",
  schedule: "time",
  when: "time",
  location: "location",
  venue: "location",
  place: "location",
  address: "location",
  room: "location",
  site: "location",
  where: "location",
  destination: "location",
  cost: "cost",
  price: "cost",
  fee: "cost",
  budget: "cost",
  amount: "cost",
  total: "cost",
  payer: "payer",
  sponsor: "payer",
  host: "host",
  lead: "lead",
  leader: "lead",
  chair: "lead",
  organizer: "organizer",
  organiser: "organizer",
  caterer: "caterer",
  presenter: "presenter",
};

/** The attribute a key names by its last word, or null when it names a thing ("team_lunch"). */
export function keyAttribute(key: string): ValueAttribute | null {
  const last = key.split("_").pop() ?? "";
  return KEY_WORDS[last] ?? null;
}

/** The key word an attribute is filed under beside its thing ("volunteer_breakfast_location"). */
export function attributeKey(thing: string, attribute: ValueAttribute): string {
  return `${thing}_${attribute}`;
}
