import type { ObjectTypeName } from "../../domain/objects";
import type { BoundedMap } from "../cache/memo-tables";
import type { ContextObject } from "../context-object";
import { type Corpus, corpusAfter, corpusOf, LazyCorpus, type LexicalMemos } from "../lexical";
import { beginsWith, type ListEdits, listEdits, MIN_RUN, sharedStart } from "../list-edits";

/**
 * Pass 5's query-independent reading of a group of objects (GroupParts), kept per list and carried over
 * from a close recent list, so ranking a warm thread's lists against a new query reads little but the
 * query. ./rank.ts scores and tiers from these parts.
 */

/** The memo tables this file reads (CompilerMemos holds them). */
export interface GroupPartsMemos extends LexicalMemos {
  /** Parsed timestamps: every compile scores every object against the same few thousand of them. */
  instants: BoundedMap<string, number>;
  /** What ranking reads of a group's objects, per list (GroupParts). */
  partsByList: WeakMap<readonly ContextObject[], GroupParts>;
  /**
   * The lists whose parts were built last, newest first: a new turn's list mostly holds the objects of
   * one of them (the same group last compile), and its parts are carried over from that list's.
   */
  recentParts: { objects: readonly ContextObject[]; parts: GroupParts }[];
  /** Runs of objects recent lists began with, newest first, and their parts once met again (PrefixParts). */
  prefixes: PrefixParts[];
}

/**
 * The first objects of a list, and once a later list begins with them too, their parts and the index
 * of their texts. A large project's candidate facts change with every question, but begin with the
 * same held newest versions, in the same order, until a write: those are read once, and each compile
 * reads only the question's own objects (see prefixedParts).
 */
export interface PrefixParts {
  objects: readonly ContextObject[];
  read?: {
    parts: Omit<GroupParts, "texts" | "whys" | "prefix">;
    texts: string[];
    corpus: Corpus;
    hasWhy: boolean;
    lastAt: Map<string, number>;
  };
}

/** Seed 004's type priority of each object type. */
export const TYPE_PRIORITY: Record<ObjectTypeName, number> = {
  policy_rule: 1,
  actionable_constraint: 0.9,
  environment_signal: 0.8,
  project_decision: 0.7,
  identity_fact: 0.6,
  preference: 0.6,
  tool_schema: 0.5,
  inferred_belief: 0.5,
  conversation_turn: 0.4,
  retrieved_passage: 0.4,
};

/** A timestamp parsed, remembered. */
export function instant(ts: string, memos: GroupPartsMemos): number {
  let parsed = memos.instants.get(ts);
  if (parsed === undefined) parsed = memos.instants.remember(ts, Date.parse(ts));
  return parsed;
}

/** Critical whatever the query: explicit constraints and policy at authority level 2 or above. */
export function isCritical(object: ContextObject): boolean {
  return (object.isConstraint || object.objectType === "policy_rule") && object.authorityLevel <= 2;
}

/**
 * What ranking reads of a group's objects, kept per list: a warm thread ranks the same settled lists
 * (src/compiler/compile-cache.ts) against every query. Besides the lexical index of the texts and
 * why_it_matters, each object's query-independent parts sit in arrays by position, so ranking a few
 * thousand background objects reads those rather than the objects themselves, scattered over the heap.
 * Lists are read as immutable.
 */
export interface GroupParts {
  texts: LazyCorpus;
  whys: LazyCorpus | null;
  /** Each object's timestamp, parsed. */
  timestamps: Float64Array;
  typePriorities: Float64Array;
  halfLives: Float64Array;
  confidences: Float64Array;
  /** 1 for an object with applicable task types or why_it_matters, which activation must weigh. */
  conditional: Uint8Array;
  critical: Uint8Array;
  /** The fewest tokens any of the object's detail levels costs (Ranked.floor). */
  floors: Float64Array;
  /** When the list begins with a kept prefix (PrefixParts): its length, and each id's last place in it. */
  prefix?: { length: number; lastAt: ReadonlyMap<string, number> };
}

/** A compile ranks six lists; two compiles' worth are kept to carry parts over from. */
const RECENT_LISTS = 12;
/** Prefixes kept: one per list a compile ranks. */
const PREFIXES = 6;

function corporaOf(objects: readonly ContextObject[], memos: GroupPartsMemos): GroupParts {
  let found = memos.partsByList.get(objects);
  if (!found) {
    found = prefixedParts(objects, memos) ?? carriedOver(objects, memos) ?? partsOf(objects, memos);
    memos.partsByList.set(objects, found);
    memos.recentParts.unshift({ objects, parts: found });
    if (memos.recentParts.length > RECENT_LISTS) memos.recentParts.pop();
  }
  return found;
}

/**
 * Each object's parts, read from the objects. One loop fills every array: a large project's candidate
 * list changes with every question, so its parts are read afresh each compile, and one typed array
 * filled through `Float64Array.from` with a callback cost as much as this whole loop.
 */
export function partsOf(objects: readonly ContextObject[], memos: GroupPartsMemos): GroupParts {
  const texts = new Array<string>(objects.length);
  const { parts, hasWhy } = readParts(objects, texts, memos);
  return { ...parts, texts: new LazyCorpus(texts, memos), whys: whysOf(objects, hasWhy, memos) };
}

/**
 * Each object's parts from position `from` on (earlier entries are the caller's), and its text into
 * `texts`; whether any of those objects has a why_it_matters.
 */
function readParts(
  objects: readonly ContextObject[],
  texts: string[],
  memos: GroupPartsMemos,
  from = 0,
  before?: Omit<GroupParts, "texts" | "whys">,
): { parts: Omit<GroupParts, "texts" | "whys">; hasWhy: boolean } {
  const size = objects.length;
  const parts = {
    timestamps: new Float64Array(size),
    typePriorities: new Float64Array(size),
    halfLives: new Float64Array(size),
    confidences: new Float64Array(size),
    conditional: new Uint8Array(size),
    critical: new Uint8Array(size),
    floors: new Float64Array(size),
  };
  if (before) for (const name of PART_NAMES) parts[name].set(before[name]);
  const { timestamps, typePriorities, halfLives, confidences, conditional, critical, floors } = parts;
  let hasWhy = false;
  for (let i = from; i < size; i++) {
    const o = objects[i] as ContextObject;
    texts[i] = o.text;
    timestamps[i] = instant(o.ts, memos);
    typePriorities[i] = TYPE_PRIORITY[o.objectType];
    halfLives[i] = o.decayHalfLifeDays ?? 30;
    confidences[i] = o.confidence;
    conditional[i] = o.taskTypes.length > 0 || o.whyItMatters ? 1 : 0;
    critical[i] = isCritical(o) ? 1 : 0;
    floors[i] = floorOf(o);
    if (o.whyItMatters) hasWhy = true;
  }
  return { parts, hasWhy };
}

const PART_NAMES = [
  "timestamps",
  "typePriorities",
  "halfLives",
  "confidences",
  "conditional",
  "critical",
  "floors",
] as const;

const whysOf = (objects: readonly ContextObject[], hasWhy: boolean, memos: GroupPartsMemos) =>
  hasWhy
    ? new LazyCorpus(
        objects.map((o) => o.whyItMatters ?? ""),
        memos,
      )
    : null;

/**
 * partsOf(objects) for a list that begins with a kept prefix (PrefixParts): the prefix's entries are
 * copied and the index of its texts is handed to the scorer, so only the objects after it are read. A
 * run of at least MIN_RUN objects this list shares with the start of a recent one is kept as a new
 * prefix, read when a later list begins with it too (a run met once is not worth indexing).
 * Undefined when no kept prefix begins the list.
 */
function prefixedParts(objects: readonly ContextObject[], memos: GroupPartsMemos): GroupParts | undefined {
  const prefix = memos.prefixes.find((p) => beginsWith(objects, p.objects));
  if (!prefix) {
    let longest = 0;
    for (const { objects: previous } of memos.recentParts) {
      longest = Math.max(longest, sharedStart(previous, objects));
    }
    if (longest >= MIN_RUN) {
      memos.prefixes.unshift({ objects: objects.slice(0, longest) });
      if (memos.prefixes.length > PREFIXES) memos.prefixes.pop();
    }
    return undefined;
  }
  if (!prefix.read) {
    const texts = new Array<string>(prefix.objects.length);
    const { parts, hasWhy } = readParts(prefix.objects, texts, memos);
    const lastAt = new Map<string, number>();
    for (const [at, object] of prefix.objects.entries()) lastAt.set(object.objectId, at);
    prefix.read = { parts, texts, corpus: corpusOf(texts, memos), hasWhy, lastAt };
  }
  const { read } = prefix;
  const start = prefix.objects.length;
  // The prefix's texts as read, without touching its objects; readParts appends the rest's in order.
  const texts = read.texts.slice();
  const rest = readParts(objects, texts, memos, start, read.parts);
  return {
    ...rest.parts,
    texts: new LazyCorpus(texts, memos, undefined, read.corpus),
    whys: whysOf(objects, read.hasWhy || rest.hasWhy, memos),
    prefix: { length: start, lastAt: read.lastAt },
  };
}

const floorOf = (o: ContextObject) =>
  o.forms ? Math.min(o.tokens, o.forms.summaryTokens, o.forms.microTokens) : o.tokens;

/**
 * partsOf(objects) from the parts of a recent list that differs from it by a few edits: kept objects'
 * entries are copied to their new place, added objects' read (the same values, so the same ranking).
 * Undefined when no recent list is close enough.
 */
function carriedOver(objects: readonly ContextObject[], memos: GroupPartsMemos): GroupParts | undefined {
  // Past about an eighth of the list changed, rebuilding costs little more than carrying over.
  const maxEdits = Math.max(8, objects.length >> 3);
  for (const { objects: previous, parts } of memos.recentParts) {
    if (Math.abs(previous.length - objects.length) > maxEdits) continue;
    const edits = listEdits(previous, objects, maxEdits);
    if (!edits) continue;
    if (edits.added.length === 0 && previous.length === objects.length) return parts;
    const after = <A extends Float64Array | Uint8Array>(
      before: A,
      fresh: A,
      of: (o: ContextObject) => number,
    ): A => {
      for (let d = 0; d < edits.moved.length; d++) {
        const to = edits.moved[d] as number;
        if (to >= 0) fresh[to] = before[d] as number;
      }
      for (const d of edits.added) fresh[d] = of(objects[d] as ContextObject);
      return fresh;
    };
    const size = objects.length;
    const hasWhy = objects.some((o) => o.whyItMatters);
    const whys = objects.map((o) => o.whyItMatters ?? "");
    return {
      texts: carriedCorpus(
        parts.texts,
        edits,
        objects.map((o) => o.text),
        memos,
      ),
      whys: !hasWhy
        ? null
        : parts.whys
          ? carriedCorpus(parts.whys, edits, whys, memos)
          : new LazyCorpus(whys, memos),
      timestamps: after(parts.timestamps, new Float64Array(size), (o) => instant(o.ts, memos)),
      typePriorities: after(parts.typePriorities, new Float64Array(size), (o) => TYPE_PRIORITY[o.objectType]),
      halfLives: after(parts.halfLives, new Float64Array(size), (o) => o.decayHalfLifeDays ?? 30),
      confidences: after(parts.confidences, new Float64Array(size), (o) => o.confidence),
      conditional: after(parts.conditional, new Uint8Array(size), (o) =>
        o.taskTypes.length > 0 || o.whyItMatters ? 1 : 0,
      ),
      critical: after(parts.critical, new Uint8Array(size), (o) => (isCritical(o) ? 1 : 0)),
      floors: after(parts.floors, new Float64Array(size), floorOf),
    };
  }
  return undefined;
}

/**
 * A list's scorer from a recent list's: its index carried over when that list was indexed, else a
 * fresh lazy scorer (indexing the old list first would cost what indexing the new one does).
 */
function carriedCorpus(
  previous: LazyCorpus,
  edits: ListEdits,
  documents: readonly string[],
  memos: LexicalMemos,
): LazyCorpus {
  const index = previous.index;
  return new LazyCorpus(documents, memos, index ? corpusAfter(index, edits, documents, memos) : undefined);
}

/** The parts rankGroup reads of a list (kept per list, carried over between close lists); for tests. */
export const groupParts = corporaOf;
