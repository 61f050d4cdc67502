import type { Slot, SlotRegistry } from "./slot-registry";
import type { SlotReading } from "./slots/reading";
import { replacePerson } from "./slots/stand-in";
import {
  attributeKey,
  keyAttribute,
  surelyNot,
  type ValueAttribute,
  valueAttribute,
} from "./value-attribute";
import { replaceKind, type ValueKind, valueKind } from "./values";

/**
 * Which slot a reading is about. A reading that names its subject is about that slot (or, for a
 * partial update, the slot holding the attribute it names); a correction that names none is resolved
 * by the clues it carries, strongest first: the value it replaces, a family, a value the slot held
 * before, shared words, the kind of value, and last the most recent slot.
 */

/** The slot a reading resolves to, with the value it gets there. */
export interface FactTarget {
  key: string;
  value: string;
  /** The part of the slot's value a term update replaced ("net 30"): retired with the old value. */
  replaced?: string;
  /** How the slot was found: named by the sentence, or resolved from a correction. */
  via: "named" | "old_value" | "history" | "family" | "overlap" | "kind" | "recent" | "partial" | "term";
}

/** Ways of finding a slot that justify high confidence; the others are educated guesses. */
export const STRONG_VIA = new Set<FactTarget["via"]>(["named", "old_value", "history", "partial", "term"]);

/** The kind of value an attribute a partial update names holds ("change the quantity to 1500" → a count). */
const ATTR_KIND: Record<string, ValueKind> = {
  quantity: "count",
  count: "count",
  number: "count",
  units: "count",
  unit: "count",
  headcount: "count",
  size: "count",
  price: "money",
  cost: "money",
  budget: "money",
  amount: "money",
  fee: "money",
  total: "money",
  rate: "money",
  date: "date",
  day: "date",
  time: "date",
  deadline: "date",
  percentage: "percent",
  discount: "percent",
};

/** The slot a reading is about, and the value it gets; null when no clue finds one. */
export function resolveTarget(
  registry: SlotRegistry,
  reading: SlotReading,
  scopeKey: string,
): FactTarget | null {
  const r = registry;
  if (reading.subject) {
    const key = reading.exact ? reading.subject : r.resolveName(reading.subject, valueKind(reading.value));
    if (reading.attr && !r.isKnown(key)) {
      const partial = partialTarget(registry, reading.attr, reading.value, scopeKey);
      if (partial) return partial;
    }
    const own = reading.exact ? null : attributeSlot(registry, reading.subject, key, reading.value, scopeKey);
    return { key: own ?? key, value: reading.value, via: "named" };
  }
  return registry.nearestFirst(() => unnamedTarget(registry, reading, scopeKey));
}

/** The slot of a reading that names none ("Make that $40,000", "go back to Redis"), by the clues it gives. */
function unnamedTarget(registry: SlotRegistry, reading: SlotReading, scopeKey: string): FactTarget | null {
  const r = registry;
  const kind = valueKind(reading.value);
  const found = (slot: Slot | undefined, via: FactTarget["via"]): FactTarget | null =>
    slot ? { key: slot.key, value: reading.value, via } : null;
  if (reading.standIn && reading.oldValue) {
    // Only the person's name changes in the slot that names them; nothing else finds a stand-in's slot.
    const slot = r.byValue(reading.oldValue, scopeKey);
    const swapped = slot?.value ? replacePerson(slot.value, reading.oldValue, reading.value) : null;
    return slot && swapped
      ? { key: slot.key, value: swapped.value, via: "old_value", replaced: swapped.name }
      : null;
  }
  if (reading.oldValue) {
    const byOld = found(r.byValue(reading.oldValue, scopeKey), "old_value");
    if (byOld) return byOld;
  }
  if (reading.family) return found(r.byFamily(reading.family, scopeKey), "family");
  // "it's net 15": the term names the slot, and only that part of its value changes.
  const term = r.byTerm(reading.value, scopeKey);
  if (term?.slot.value) {
    const value = term.whole ? reading.value : term.slot.value.replace(term.part, reading.value);
    return { key: term.slot.key, value, via: "term", replaced: term.part };
  }
  if (reading.termOnly) return null;
  // "go back to X" when this run never saw X falls through to the other clues.
  const byHistory = found(r.byHistory(reading.value, scopeKey), "history");
  if (byHistory) return byHistory;
  const byOverlap = found(r.byOverlap(reading.value, scopeKey, reading.weak), "overlap");
  if (byOverlap) return byOverlap;
  if (kind !== "text") {
    const byKind = found(r.byKind(kind, scopeKey), "kind");
    if (byKind) return byKind;
  }
  if (!reading.weak) {
    const recent = r.latest(scopeKey);
    // Recency alone never moves a figure or a date into words ("go back to a laundromat" is no rent).
    if (recent && recent.kind === kind) return found(recent, "recent");
  }
  return null;
}

/** "change the quantity to 1500": rewrite the count inside the newest slot that has one. */
function partialTarget(
  registry: SlotRegistry,
  attr: string,
  value: string,
  scopeKey: string,
): FactTarget | null {
  const head = attr.split("_").pop() ?? attr;
  const kind = ATTR_KIND[head];
  // The new value must be of the kind it replaces: "cut the load time from 1.2s to 400ms" is a
  // duration, and writing it over the date inside "sprint deadline of April 5" is a false merge.
  if (!kind || valueKind(value) !== kind) return null;
  const slot = registry.containing(kind, scopeKey);
  if (!slot?.value) return null;
  const rewritten = replaceKind(slot.value, kind, value);
  return rewritten ? { key: slot.key, value: rewritten, via: "partial" } : null;
}

/** The attribute a slot holds: the one its key names, else the one its value states. */
function slotAttribute(slot: Slot): ValueAttribute | null {
  return keyAttribute(slot.key) ?? (slot.value === null ? null : valueAttribute(slot.value));
}

/**
 * The slot of the attribute a value states, when its subject names a thing and not an attribute:
 * "the volunteer breakfast moved to the Copper Kettle" after "… is at 8am on Saturday" is the
 * breakfast's place beside its time (`volunteer_breakfast_location`), and a later "… moved to 9:30am"
 * is its time again. Null keeps the key the subject names: the subject says the attribute itself
 * ("the deadline is …"), the value's words do not say which attribute it is, or the slot holds the
 * same attribute or may hold it in other words ("two weeks out", "TBD" before a date). A slot whose
 * value surely is not of it ("a potluck" before "at noon") keeps its value beside the new one.
 */
function attributeSlot(
  registry: SlotRegistry,
  subject: string,
  key: string,
  value: string,
  scopeKey: string,
): string | null {
  if (keyAttribute(subject)) return null;
  const wanted = valueAttribute(value);
  const named = registry.get(key, scopeKey);
  if (!wanted || !named) return null;
  const current = slotAttribute(named);
  // Unsure whether the slot's value is of this attribute: the new value stays the slot's, as it always was.
  const unsure = current === null && (named.value === null || !surelyNot(named.value, wanted));
  if (current === wanted || unsure) return null;
  // The thing the key is about: "volunteer_breakfast" for "volunteer_breakfast_location" too.
  const thing = keyAttribute(key) && key.includes("_") ? key.slice(0, key.lastIndexOf("_")) : key;
  const siblings = [thing, attributeKey(thing, wanted)]
    .map((k) => registry.get(k, scopeKey))
    .filter((s): s is Slot => s !== undefined && slotAttribute(s) === wanted);
  const newest = siblings.reduce<Slot | undefined>((a, b) => (!a || b.seq > a.seq ? b : a), undefined);
  return newest?.key ?? attributeKey(thing, wanted);
}
