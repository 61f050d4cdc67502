import { attributeWord, isBoundWord, sameAttribute } from "../../entities/slot-attribute";
import { keyHead } from "./slots/subject-keys";
import { contentWords, normalizeValue } from "./text";
import { containsKind, DATE, type ValueKind, valueKind } from "./values";

/**
 * The slots a run knows about: the thread's current facts (`existingFacts`) and whatever the run has
 * read so far, per scope. It answers the two questions supersession needs:
 * - which known key a newly read key means ("rate" → hourly_rate, "official plan" → plan); and
 * - which slot a correction that names none is about ("Make that $150,000" → the latest money slot).
 *
 * Recency: slots read in this run are newer than any existing fact; among existing facts the list
 * order stands in for age (later = newer), since the port gives no timestamps.
 */
export interface Slot {
  key: string;
  /** Current value; null when the run only heard about the slot's past ("was …"). */
  value: string | null;
  kind: ValueKind;
  /** Values the slot held before, oldest first (including the current one). */
  history: string[];
  seq: number;
  existing: boolean;
  /**
   * An existing fact another thread of the project wrote, which this conversation has not mentioned:
   * a correction that names no slot ("Make that $40,000") is about the conversation's own slots first.
   */
  elsewhere?: boolean;
}

export const GLOBAL = "global";

/** Key suffixes a shorter key may omit: "launch" means launch_date, "meeting" meeting_time. */
const TYPE_SUFFIXES = new Set([
  "date",
  "time",
  "status",
  "name",
  "value",
  "level",
  "day",
  "location",
  "choice",
]);
/** A term and its number ("net 15", "gate 22", "size 10"): one word, then the figure, and nothing else. */
const TERM = /^([a-z][a-z-]{1,20})\s+(\d[\d.,]*)$/i;
/** An identifier with a letter prefix ("LT-1187", "INV-2207"), first in a value: the prefix names its kind. */
const IDENTIFIER = /^([A-Z]{1,5})-(\d{2,})\b/;
/** Slot keys that say nothing about what the value is; overlap with them proves nothing. */
const GENERIC_KEYS = new Set(["decision", "choice", "plan", "preference", "value", "status"]);

function tokens(key: string): string[] {
  return key.split("_").filter(Boolean);
}

/**
 * A key word without its derivational ending, so a modifier compares by what it names: "deploy" and
 * "deployment", "schedule" and "scheduling". Words of four letters or fewer are left alone.
 */
const KEY_SUFFIX = /(?:ments?|ations?|ings?|ed|es|s)$/;
export function keyStem(word: string): string {
  if (word.length <= 4) return word;
  const base = word.replace(KEY_SUFFIX, "");
  return base.length >= 3 ? base.replace(/e$/, "") : word;
}

export class SlotRegistry {
  private readonly scopes = new Map<string, Map<string, Slot>>();
  private seq = 0;
  /** While set, lookups see only the conversation's own slots (`nearestFirst`). */
  private conversationOnly = false;

  constructor(existing: { key: string; value: string; elsewhere?: boolean }[]) {
    const global = this.scope(GLOBAL);
    const n = existing.length;
    existing.forEach((fact, i) => {
      const value = String(fact.value ?? "");
      global.set(fact.key, {
        key: fact.key,
        value,
        kind: valueKind(value),
        history: [value],
        seq: i - n,
        existing: true,
        ...(fact.elsewhere ? { elsewhere: true } : {}),
      });
    });
  }

  /**
   * What `find` answers over the conversation's own slots (read in this run, or existing facts this
   * thread wrote or mentioned), else over every slot. In a busy project other threads' facts hold
   * round figures, weekdays and words of every kind; a correction that names no slot must not be
   * filed under one of them while the conversation has a slot it can be about.
   */
  nearestFirst<T>(find: () => T | null): T | null {
    this.conversationOnly = true;
    try {
      const own = find();
      if (own !== null) return own;
    } finally {
      this.conversationOnly = false;
    }
    return find();
  }

  private scope(scopeKey: string): Map<string, Slot> {
    let slots = this.scopes.get(scopeKey);
    if (!slots) {
      slots = new Map();
      this.scopes.set(scopeKey, slots);
    }
    return slots;
  }

  /** Slots visible from a scope, as far as `nearestFirst` lets lookups see. */
  private visible(scopeKey: string): Slot[] {
    const slots = this.inScope(scopeKey);
    return this.conversationOnly ? slots.filter((s) => !s.elsewhere) : slots;
  }

  /** Slots of a scope: its own, then the global ones it may refer to. */
  private inScope(scopeKey: string): Slot[] {
    const own = [...(this.scopes.get(scopeKey)?.values() ?? [])];
    if (scopeKey === GLOBAL) return own;
    const shadowed = new Set(own.map((s) => s.key));
    return own.concat([...this.scope(GLOBAL).values()].filter((s) => !shadowed.has(s.key)));
  }

  private allKeys(): Map<string, number> {
    const keys = new Map<string, number>();
    for (const slots of this.scopes.values()) {
      for (const slot of slots.values())
        keys.set(slot.key, Math.max(keys.get(slot.key) ?? -Infinity, slot.seq));
    }
    return keys;
  }

  /**
   * The known key a read key means. Exact match first; otherwise a known key with the same head noun
   * (modulo synonyms and plurals) whose other words include or are included in the read key's
   * ("budget" ~ project_budget, "rate" ~ hourly_rate, "priority" ~ top_priority), or one that only
   * adds a type suffix ("launch" ~ launch_date). The closest, then the most recent, wins.
   */
  resolveName(raw: string, kind?: ValueKind): string {
    const known = this.allKeys();
    if (known.has(raw)) return raw;
    const rawTokens = tokens(raw);
    // One attribute in other words ("rent ceiling" ~ max_rent): the slot notion the write path uses.
    const same = [...known].filter(([key]) => sameAttribute(tokens(key), rawTokens));
    if (same.length) return same.reduce((a, b) => (b[1] > a[1] ? b : a))[0];
    const bound = kind ? this.boundOf(rawTokens, kind) : undefined;
    if (bound) return bound;
    const rawHead = keyHead(raw);
    // Modifiers compare by stem ("deploy window" ~ scheduled_deployment_window).
    const rawPrefix = new Set(rawTokens.slice(0, -1).map(keyStem));
    let best: { key: string; distance: number; seq: number } | null = null;
    let tied: string[] = [];
    for (const [key, seq] of known) {
      const keyTokens = tokens(key);
      let distance = Number.POSITIVE_INFINITY;
      if (keyHead(key) === rawHead) {
        const prefix = keyTokens.slice(0, -1).map(keyStem);
        const inRaw = prefix.filter((t) => rawPrefix.has(t)).length;
        const subset = inRaw === rawPrefix.size || inRaw === prefix.length;
        if (subset) distance = prefix.length + rawPrefix.size - 2 * inRaw;
      } else if (
        keyTokens.length === rawTokens.length + 1 &&
        TYPE_SUFFIXES.has(keyTokens[keyTokens.length - 1] ?? "") &&
        rawTokens.every((t, i) => keyTokens[i] === t)
      ) {
        distance = 1;
      }
      if (!Number.isFinite(distance)) continue;
      if (!best || distance < best.distance) tied = [key];
      else if (distance === best.distance) tied.push(key);
      if (!best || distance < best.distance || (distance === best.distance && seq > best.seq)) {
        best = { key, distance, seq };
      }
    }
    // A bare head two slots with different values share ("the cap" beside hotel_cap and food_cap)
    // names neither for sure; two keys holding one value are one slot filed twice.
    if (best && rawPrefix.size === 0 && best.distance > 0 && this.distinctValues(tied) > 1) return raw;
    return best?.key ?? raw;
  }

  /** How many different current values these keys hold, in any scope ("$100,000" is in "$100,000 (approved)"). */
  private distinctValues(keys: string[]): number {
    const values: string[] = [];
    for (const slots of this.scopes.values()) {
      for (const key of keys) {
        const value = normalizeValue(slots.get(key)?.value ?? "");
        if (value && !values.some((v) => v.includes(value) || value.includes(v))) values.push(value);
      }
    }
    return values.length;
  }

  /**
   * "The ceiling is now $2,300" names a bound and not what it bounds: it is the slot of the one known
   * bound of that direction whose value is of the same kind. Two such slots (a hotel cap and a food
   * cap) leave it unresolved: a guess between them could replace the wrong value.
   */
  private boundOf(rawTokens: string[], kind: ValueKind): string | undefined {
    if (!rawTokens.length || !rawTokens.every(isBoundWord)) return undefined;
    const direction = attributeWord(rawTokens[0] ?? "");
    const keys = new Set<string>();
    for (const slots of this.scopes.values()) {
      for (const slot of slots.values()) {
        if (slot.kind !== kind) continue;
        if (tokens(slot.key).some((t) => isBoundWord(t) && attributeWord(t) === direction))
          keys.add(slot.key);
      }
    }
    return keys.size === 1 ? [...keys][0] : undefined;
  }

  isKnown(key: string): boolean {
    for (const slots of this.scopes.values()) if (slots.has(key)) return true;
    return false;
  }

  /** The slot's state in a scope (global facts are visible from every scope). */
  get(key: string, scopeKey: string): Slot | undefined {
    return (
      this.scopes.get(scopeKey)?.get(key) ?? (scopeKey === GLOBAL ? undefined : this.scope(GLOBAL).get(key))
    );
  }

  /** Values already stated in a scope before this run (a scope carried over from the last run). */
  seed(facts: { key: string; value: string }[], scopeKey: string): void {
    for (const fact of facts) this.set(fact.key, String(fact.value ?? ""), scopeKey);
  }

  /** The slots holding a value in exactly this scope, oldest first. */
  ownSlots(scopeKey: string): Slot[] {
    const slots = [...(this.scopes.get(scopeKey)?.values() ?? [])];
    return slots.filter((s) => s.value !== null).sort((a, b) => a.seq - b.seq);
  }

  /** The slot's own state in exactly this scope. */
  own(key: string, scopeKey: string): Slot | undefined {
    return this.scopes.get(scopeKey)?.get(key);
  }

  set(key: string, value: string, scopeKey: string): void {
    const slots = this.scope(scopeKey);
    const old = slots.get(key);
    const history = old ? [...old.history, value] : [value];
    slots.set(key, { key, value, kind: valueKind(value), history, seq: ++this.seq, existing: false });
  }

  /** Records a past value ("The original launch date was Friday") without making it current. */
  noteHistory(key: string, value: string, scopeKey: string): void {
    const slots = this.scope(scopeKey);
    const old = slots.get(key) ?? this.get(key, scopeKey);
    if (old) {
      const { elsewhere: _, ...mentioned } = old;
      slots.set(key, { ...mentioned, history: [...old.history, value], seq: ++this.seq });
      return;
    }
    slots.set(key, {
      key,
      value: null,
      kind: valueKind(value),
      history: [value],
      seq: ++this.seq,
      existing: false,
    });
  }

  /** Marks a slot as just mentioned, so recency-based resolution prefers it. */
  touch(key: string, scopeKey: string): void {
    const slot = this.scopes.get(scopeKey)?.get(key);
    if (slot) {
      slot.seq = ++this.seq;
      // The conversation mentioned it: it is the conversation's own now.
      slot.elsewhere = undefined;
    }
  }

  private newest(slots: Slot[], accept: (slot: Slot) => boolean): Slot | undefined {
    let best: Slot | undefined;
    for (const slot of slots) {
      if (accept(slot) && (!best || slot.seq > best.seq)) best = slot;
    }
    return best;
  }

  /** The slot currently holding (or, failing that, having held) a value matching `value`. */
  byValue(value: string, scopeKey: string): Slot | undefined {
    const wanted = normalizeValue(value);
    if (!wanted) return undefined;
    const slots = this.visible(scopeKey);
    const matches = (v: string | null) => {
      if (v === null) return false;
      const have = normalizeValue(v);
      return have === wanted || (wanted.length >= 3 && have.includes(wanted));
    };
    return (
      this.newest(slots, (s) => matches(s.value)) ??
      this.newest(slots, (s) => s.history.some((h) => matches(h)))
    );
  }

  /**
   * The slot a term update is about: "net 15" changes the newest slot whose current value says "net"
   * followed by another number ("brand refresh, $4,800, net 30"), and the part it replaces ("net 30").
   */
  byTerm(value: string, scopeKey: string): { slot: Slot; part: string; whole: boolean } | undefined {
    const term = TERM.exec(value.trim());
    const id = term ? null : IDENTIFIER.exec(value.trim());
    const found = term ?? id;
    if (!found) return undefined;
    const [, word, number] = found as unknown as [string, string, string];
    const inValue = term
      ? new RegExp(`\\b${word}\\s+(\\d[\\d.,]*)\\b`, "i")
      : new RegExp(`\\b${word}-(\\d+)\\b`);
    let best: { slot: Slot; part: string; whole: boolean } | undefined;
    for (const slot of this.visible(scopeKey)) {
      const m = slot.value === null ? null : inValue.exec(slot.value);
      if (!m || m[1] === number) continue;
      // "LT-1187, a Latitude 5440" says more than the tag: it is the slot's whole new value.
      if (!best || slot.seq > best.slot.seq) best = { slot, part: m[0], whole: id !== null };
    }
    return best;
  }

  /**
   * The global slots whose current value a text repeats, whole-word and case-insensitively. Values
   * shorter than four characters ("5", "May") would match ordinary words and are left out.
   * `acknowledgement`: the text is a short acknowledgement ("Sounds good, September 9 it is."), where a
   * date or figure only one slot holds is that slot's, named or not.
   */
  repeatedIn(text: string, acknowledgement = false): { key: string; value: string }[] {
    const lower = text.toLowerCase();
    const said = new Set(contentWords(text).map(keyStem));
    const out: { key: string; value: string }[] = [];
    const unnamed: { key: string; value: string }[] = [];
    for (const slot of this.scope(GLOBAL).values()) {
      const value = slot.value;
      if (value === null || value.length < 4) continue;
      if (saysWhole(lower, value)) {
        out.push({ key: slot.key, value });
        continue;
      }
      // "scheduled for September 9" is repeated by "the tour is on September 9": its date, with a
      // word of the slot's name beside it (the date alone could be another thing's).
      const core = valueCore(value);
      if (core === null || !saysWhole(lower, core)) continue;
      const named = tokens(slot.key).some((t) => !GENERIC_KEYS.has(t) && said.has(keyStem(t)));
      (named ? out : unnamed).push({ key: slot.key, value });
    }
    if (out.length === 0 && acknowledgement && unnamed.length === 1) return unnamed;
    return out;
  }

  /**
   * The one global slot a text names by its head noun ("the deadline moves…" → report_deadline);
   * null when none or several do.
   */
  namedIn(text: string): string | null {
    const said = new Set((text.toLowerCase().match(/[a-z0-9]+/g) ?? []).map(keyHead));
    const keys = [...this.scope(GLOBAL).values()]
      .filter((s) => s.value !== null && said.has(keyHead(s.key)))
      .map((s) => s.key);
    return keys.length === 1 ? (keys[0] as string) : null;
  }

  /**
   * The slot whose past values include `value`, for "go back to X": one of them is X, begins with it
   * ("$150,000 (pending sign-off)") or is X after a lead-in ("scheduled for September 9"). A value that
   * mentions X among other things ("renews on 2027-09-13 at $40,000 a year") is not X: in a busy project
   * some fact always mentions a round figure or a weekday.
   */
  byHistory(value: string, scopeKey: string): Slot | undefined {
    const wanted = normalizeValue(value);
    if (!wanted) return undefined;
    const held = (past: string) => {
      const have = normalizeValue(past);
      if (have === wanted || (have.startsWith(wanted) && !/\w/.test(have.charAt(wanted.length)))) return true;
      const core = valueCore(past);
      return core !== null && normalizeValue(core) === wanted;
    };
    return this.newest(this.visible(scopeKey), (s) => s.history.some(held));
  }

  /** The newest slot whose key ends with `_<family>` (or is the family). */
  byFamily(family: string, scopeKey: string): Slot | undefined {
    return this.newest(this.visible(scopeKey), (s) => s.key === family || s.key.endsWith(`_${family}`));
  }

  /**
   * The slot sharing the most content words with the value (in its values, and in its key unless
   * `valuesOnly`: a hedged idea that names no slot, "thinking about a project regarding infrastructure",
   * is no new value of a slot whose name merely shares a word with it).
   */
  byOverlap(value: string, scopeKey: string, valuesOnly = false): Slot | undefined {
    const words = new Set(contentWords(value));
    if (words.size === 0) return undefined;
    let best: { slot: Slot; score: number } | undefined;
    for (const slot of this.visible(scopeKey)) {
      const pool = new Set(contentWords(slot.history.join(" ")));
      if (!valuesOnly && !GENERIC_KEYS.has(slot.key)) for (const t of tokens(slot.key)) pool.add(t);
      let score = 0;
      for (const w of words) if (pool.has(w)) score++;
      if (score > 0 && (!best || score > best.score || (score === best.score && slot.seq > best.slot.seq))) {
        best = { slot, score };
      }
    }
    return best?.slot;
  }

  /** The newest slot whose current value is of this kind; run slots before existing facts. */
  byKind(kind: ValueKind, scopeKey: string): Slot | undefined {
    return (
      this.newest(this.visible(scopeKey), (s) => s.value !== null && s.kind === kind) ??
      this.newest(this.visible(scopeKey), (s) => s.value === null && s.kind === kind)
    );
  }

  /**
   * The one slot whose current value is a figure of this kind ("$36,900 out the door"), when exactly
   * one is; a value that only mentions a figure in passing is a text, not such a slot.
   */
  soleOfKind(kind: ValueKind, scopeKey: string): Slot | undefined {
    if (kind === "text") return undefined;
    const figure = (v: string | null) => v !== null && /^[$\u20ac\u00a3]?\d/.test(v.trim());
    const holding = this.visible(scopeKey).filter((s) => figure(s.value) && s.kind === kind);
    return holding.length === 1 ? holding[0] : undefined;
  }

  /** The newest slot whose value contains a part of this kind ("500 units to Chicago" has a count). */
  containing(kind: ValueKind, scopeKey: string): Slot | undefined {
    return this.newest(this.visible(scopeKey), (s) => s.value !== null && containsKind(s.value, kind));
  }

  /** The newest slot read in this run (not an existing fact). */
  latest(scopeKey: string): Slot | undefined {
    return this.newest(this.visible(scopeKey), (s) => !s.existing);
  }
}

/** Whether `lower` holds `value` whole-word, case-insensitively. */
function saysWhole(lower: string, value: string): boolean {
  const at = lower.indexOf(value.toLowerCase());
  if (at === -1) return false;
  return !/[\w$]/.test(lower.charAt(at - 1)) && !/\w/.test(lower.charAt(at + value.length));
}

/** The verb or preposition a scheduled value was stated with: "scheduled for", "booked on", "at". */
const VALUE_LEAD =
  /^(?:(?:scheduled|set|booked|planned|slated|pencil+ed in|moved|pushed|due|confirmed|fixed|happening|taking place)\s+)?(?:for|on|at|by|to|in|until)\s+/i;
/** A date, a time or a figure: a core specific enough to be recognised without its lead words. */
const SPECIFIC = new RegExp(String.raw`\d|${DATE.source}`, "i");

/** The date, time or figure a value states after its lead words; null when there is no lead or it is vaguer. */
function valueCore(value: string): string | null {
  const core = value.replace(VALUE_LEAD, "");
  return core !== value && core.length >= 3 && SPECIFIC.test(core) ? core : null;
}
