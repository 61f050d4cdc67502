import { MONEY } from "../values";
import { reading, type SlotReading, value } from "./reading";
import { subjectKey } from "./subject-keys";

/** Figures: amounts approved or allocated, terms finalised at a value, counts bound for a place. */

const FINALIZE =
  /\b(?:finali[sz]ed|set|fixed|locked(?:\s+in)?|agreed(?:\s+on)?|settled(?:\s+on)?|confirmed|pinned|nailed down|landed)\s+(?:the\s+|our\s+)?([a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)\s+(?:at|to|as)\s+(.+)$/i;
const MONEY_NOUN = new RegExp(
  String.raw`\b(?:approved|allocated|authori[sz]ed|set aside|budgeted|requested|committed|secured|earmarked|granted)\s+(?:the\s+|a\s+|an\s+|our\s+)?(${MONEY.source})\s+(?!(?:for|to|toward|towards)\b)([a-z][\w-]*(?:\s+(?!for\b)[a-z][\w-]*)?)(?:\s+for\s+(?:the\s+|our\s+|this\s+)?([a-z][\w-]*(?:\s+[a-z][\w-]*)?))?`,
  "i",
);
const MONEY_NOUN_OF = new RegExp(
  String.raw`\b(?:approved|allocated|authori[sz]ed|set|agreed|signed|committed to|offered|quoted)\s+(?:the\s+|a\s+|an\s+|our\s+)?([a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+(?:of|at)\s+(${MONEY.source})(?:\s+for\s+(?:the\s+|our\s+|this\s+)?([A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*)?))?`,
  "i",
);

/**
 * "We set aside $8,000 for the greenhouse renovation", "allocated $5,000 to marketing": an amount put
 * toward a thing, with no noun of its own, is that thing's budget (a request, when requested).
 */
const MONEY_TOWARD = new RegExp(
  String.raw`\b(approved|allocated|authori[sz]ed|set aside|put aside|budgeted|requested|committed|earmarked|granted)\s+(?:the\s+|a\s+|an\s+|our\s+)?(${MONEY.source})\s+(?:for|to|toward|towards)\s+(?:the\s+|our\s+|this\s+|my\s+)?([a-z][\w-]*(?:\s+(?!for\b|to\b|by\b|in\b|on\b|at\b|and\b|with\b)[a-z][\w-]*){0,2})`,
  "i",
);

function moneyTowardReading(clause: string): SlotReading | null {
  const m = MONEY_TOWARD.exec(clause);
  const amount = value(m?.[2]);
  const thing = m ? subjectKey(m[3] ?? "") : null;
  if (!m || !amount || !thing || thing.generic) return null;
  const attribute = /^requested$/i.test(m[1] ?? "") ? "request" : "budget";
  return reading("money_noun", `${thing.key}_${attribute}`, amount);
}

export function finalizeReading(clause: string): SlotReading | null {
  const m = FINALIZE.exec(clause);
  if (!m) return null;
  const subject = subjectKey(m[1] ?? "");
  const v = value(m[2]);
  if (!subject || subject.generic || !v) return null;
  return reading("finalize", subject.key, v);
}

export function moneyNounReading(clause: string): SlotReading | null {
  const toward = moneyTowardReading(clause);
  if (toward) return toward;
  const m = MONEY_NOUN.exec(clause);
  if (!m) {
    const of = MONEY_NOUN_OF.exec(clause);
    if (!of) return null;
    const noun = subjectKey(of[1] ?? "");
    const amount = value(of[2]);
    if (!noun || noun.generic || !amount) return null;
    const owner = of[3] ? subjectKey(of[3]) : null;
    return reading("money_noun", owner ? `${owner.key}_${noun.key}` : noun.key, amount);
  }
  const amount = value(m[1]);
  const noun = subjectKey((m[2] ?? "").replace(/[,.;].*$/, ""));
  if (!amount || !noun || noun.generic) return null;
  const owner = m[3] ? subjectKey(m[3]) : null;
  return reading("money_noun", owner ? `${owner.key}_${noun.key}` : noun.key, amount);
}

/**
 * "500 units of packages to Chicago hub": a count of something and where it goes. One phrase, two
 * slots: a later "change the quantity to 1500" must replace the count and leave the place alone.
 */
const COUNT_TO_PLACE =
  /^(\d[\d,]*(?:\.\d+)?\s+(?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*(?:\s+of\s+(?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*)?)\s+(?:to|bound for|headed (?:to|for)|going to|destined for)\s+(?:the\s+)?([A-Z][\w'.&-]*(?:\s+[A-Za-z0-9][\w'.&-]*){0,3})$/;

/** A named reading whose value is a count bound for a place becomes `<subject>_quantity` and `_destination`. */
export function splitCompound(r: SlotReading): SlotReading[] {
  if (!r.subject || r.draft) return [r];
  const m = COUNT_TO_PLACE.exec(r.value);
  const quantity = value(m?.[1]);
  const place = value(m?.[2]);
  if (!quantity || !place) return [r];
  const owner = r.subject.replace(/_(?:quantity|destination|location)$/, "");
  return [
    { ...r, subject: `${owner}_quantity`, value: quantity },
    { ...r, kind: "destination", subject: `${owner}_destination`, value: place, family: "destination" },
  ];
}
