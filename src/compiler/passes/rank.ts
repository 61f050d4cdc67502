import type { ObjectTypeName, PriorityTierName, TaskTypeName } from "../../api/schemas";
import { EPISODE_RRF_K, FUSION_DEPTH, MIN_VECTOR_SIMILARITY, VECTOR_WEIGHT } from "../../retrieval/episodes";
import { fusedByPosition, spreadFused } from "../../retrieval/fuse";
import { DAY_MS, recencyWeight, weightedScore } from "../../retrieval/score";
import type { ContextObject, Omission } from "../context-object";
import { corpusAfter, LazyCorpus, type LexicalMemos } from "../lexical";
import { type ListEdits, listEdits } from "../list-edits";
import type { BoundedMap } from "../memo-tables";

/**
 * Pass 5: relevance and priority tiers. Hybrid relevance (BM25 fused with the vector index's nearest
 * objects, see hybridSimilarity) is the semantic signal of seed 004's composite score — then type
 * priority, recency on the object's half-life, outcome, usage and confidence — and every object gets a
 * tier:
 *  critical   explicit constraints and policy at authority level 2 or above (level 0 is highest);
 *  important  what the query is about, and current environment signals;
 *  useful     the recent conversation;
 *  minimal    background facts and items the query does not touch;
 *  irrelevant omitted: untouched working-set notes, and preferences whose task type or why_it_matters
 *             does not match (seed 001's conditional activation).
 */

export interface Ranked {
  object: ContextObject;
  tier: PriorityTierName;
  relevance: number;
  score: number;
  /**
   * The fewest tokens any detail level of the object costs (its stored counts), when known: a lower
   * bound that lets pass 7 pass over what cannot fit without reading the object.
   */
  floor?: number;
}

const TYPE_PRIORITY: Record<ObjectTypeName, number> = {
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

/** The memo tables this file reads (CompilerMemos holds them). */
export interface RankMemos extends LexicalMemos {
  /** Parsed timestamps: every compile scores every object against the same few thousand of them. */
  instants: BoundedMap<string, number>;
  /** What ranking reads of a group's objects, per list (GroupParts). */
  partsByList: WeakMap<readonly ContextObject[], GroupParts>;
  /**
   * The lists whose parts were built last, newest first: a new turn's list mostly holds the objects of
   * one of them (the same group last compile), and its parts are carried over from that list's.
   */
  recentParts: { objects: readonly ContextObject[]; parts: GroupParts }[];
  /** Each list split by trust (splitByTrust). */
  trustSplits: WeakMap<readonly ContextObject[], { trusted: ContextObject[]; untrusted: ContextObject[] }>;
  /** Each object's position in its list by id (a warm thread ranks the same lists again). */
  positions: WeakMap<readonly ContextObject[], Map<string, number>>;
}

function instant(ts: string, memos: RankMemos): number {
  let parsed = memos.instants.get(ts);
  if (parsed === undefined) parsed = memos.instants.remember(ts, Date.parse(ts));
  return parsed;
}

/**
 * Seed 004's composite score (src/retrieval/score.ts) of a Context Object: the semantic signal given,
 * then its type's priority, recency on its own half-life, and its confidence; outcome and usage are
 * neutral (1) until objects record them.
 */
export function objectScore(
  object: ContextObject,
  semantic: number,
  now: string,
  nowMs = Date.parse(now),
  tsMs = Date.parse(object.ts),
): number {
  return scoreOf(
    semantic,
    TYPE_PRIORITY[object.objectType],
    nowMs - tsMs,
    object.decayHalfLifeDays ?? 30,
    object.confidence,
  );
}

/** objectScore from the object's parts, as rankGroup keeps them per list. */
function scoreOf(
  semantic: number,
  typePriority: number,
  ageMs: number,
  halfLifeDays: number,
  confidence: number,
): number {
  // An unparseable timestamp counts as new.
  const ageDays = Math.max(0, ageMs / DAY_MS) || 0;
  return weightedScore(semantic, typePriority, recencyWeight(ageDays, halfLifeDays), 1, 1, confidence);
}

/** Seed 001: Activate(C) ⇔ ActiveTask ∈ C.TaskTypes ∧ SemanticMatch(ActiveQuery, C.WhyItMatters). */
export function activation(
  object: ContextObject,
  taskType: TaskTypeName | undefined,
  matchesWhy: boolean,
): string | undefined {
  if (object.taskTypes.length > 0 && (!taskType || !object.taskTypes.includes(taskType))) {
    return `applies to ${object.taskTypes.join(", ")}, not to ${taskType ?? "an unstated task type"}`;
  }
  if (object.whyItMatters && !matchesWhy) return "why_it_matters does not match the query";
  return undefined;
}

export function isCritical(object: ContextObject): boolean {
  return (object.isConstraint || object.objectType === "policy_rule") && object.authorityLevel <= 2;
}

export interface RankContext {
  query: string;
  now: string;
  taskType?: TaskTypeName;
  /**
   * Cosine similarity to the query of the objects the thread's vector index found nearest (facts and
   * state items, through the VectorIndex port), by object id. Objects not in it were not among them.
   */
  similar?: ReadonlyMap<string, number>;
  memos: RankMemos;
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
}

/** A compile ranks six lists; two compiles' worth are kept to carry parts over from. */
const RECENT_LISTS = 12;

function corporaOf(objects: readonly ContextObject[], memos: RankMemos): GroupParts {
  let found = memos.partsByList.get(objects);
  if (!found) {
    found = carriedOver(objects, memos) ?? partsOf(objects, memos);
    memos.partsByList.set(objects, found);
    memos.recentParts.unshift({ objects, parts: found });
    if (memos.recentParts.length > RECENT_LISTS) memos.recentParts.pop();
  }
  return found;
}

/** Each object's parts, read from the objects. */
export function partsOf(objects: readonly ContextObject[], memos: RankMemos): GroupParts {
  return {
    texts: new LazyCorpus(
      objects.map((o) => o.text),
      memos,
    ),
    whys: objects.some((o) => o.whyItMatters)
      ? new LazyCorpus(
          objects.map((o) => o.whyItMatters ?? ""),
          memos,
        )
      : null,
    timestamps: Float64Array.from(objects, (o) => instant(o.ts, memos)),
    typePriorities: Float64Array.from(objects, (o) => TYPE_PRIORITY[o.objectType]),
    halfLives: Float64Array.from(objects, (o) => o.decayHalfLifeDays ?? 30),
    confidences: Float64Array.from(objects, (o) => o.confidence),
    conditional: Uint8Array.from(objects, (o) => (o.taskTypes.length > 0 || o.whyItMatters ? 1 : 0)),
    critical: Uint8Array.from(objects, (o) => (isCritical(o) ? 1 : 0)),
    floors: Float64Array.from(objects, floorOf),
  };
}

const floorOf = (o: ContextObject) =>
  o.forms ? Math.min(o.tokens, o.forms.summaryTokens, o.forms.microTokens) : o.tokens;

/**
 * partsOf(objects) from the parts of a recent list that differs from it by a few edits: kept objects'
 * entries are copied to their new place, added objects' read (the same values, so the same ranking).
 * Undefined when no recent list is close enough.
 */
function carriedOver(objects: readonly ContextObject[], memos: RankMemos): GroupParts | undefined {
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

/**
 * A list split into objects at authority level 4 (retrieved, untrusted) and the rest, in order; the
 * same two lists for the same list, so their lexical index above carries over between compiles.
 */
export function splitByTrust(objects: readonly ContextObject[], memos: RankMemos) {
  let found = memos.trustSplits.get(objects);
  if (!found) {
    found = {
      trusted: objects.filter((o) => o.authorityLevel !== 4),
      untrusted: objects.filter((o) => o.authorityLevel === 4),
    };
    memos.trustSplits.set(objects, found);
  }
  return found;
}

/** Ranks one group of objects (facts, items, working set …) against the query. */
export function rankGroup(
  objects: ContextObject[],
  ctx: RankContext,
  tierOf: (object: ContextObject, relevant: boolean) => PriorityTierName,
): { ranked: Ranked[]; omitted: Omission[] } {
  const parts = corporaOf(objects, ctx.memos);
  const { texts, whys, timestamps } = parts;
  const relevance = texts.scores(ctx.query);
  // Only client-stated Context Objects carry why_it_matters; most compiles have none to score.
  const why = whys ? whys.scores(ctx.query) : [];
  const { similarity, nearest } = hybridSimilarity(objects, relevance, ctx.similar, ctx.memos);
  // Tier is the first sort key: each tier is gathered apart and sorted on its own (the same order
  // as one sort over all, which is stable), sparing thousands of tier comparisons per compile.
  const byTier: Ranked[][] = Object.values(TIER_ORDER).map(() => []);
  const omitted: Omission[] = [];
  const nowMs = instant(ctx.now, ctx.memos);
  for (let i = 0; i < objects.length; i++) {
    const object = objects[i] as ContextObject;
    const r = relevance[i] ?? 0;
    const inactive = parts.conditional[i]
      ? activation(object, ctx.taskType, (why[i] ?? 0) > 0 || r > 0)
      : undefined;
    if (inactive) {
      omitted.push({ object, reason: "irrelevant", detail: inactive, tier: "irrelevant" });
      continue;
    }
    const tier = parts.critical[i] ? "critical" : tierOf(object, r > 0 || nearest.has(i));
    if (tier === "irrelevant") {
      omitted.push({ object, reason: "irrelevant", detail: "no overlap with the query", tier });
      continue;
    }
    (byTier[TIER_ORDER[tier]] as Ranked[]).push({
      object,
      tier,
      relevance: r,
      score: scoreOf(
        similarity[i] as number,
        parts.typePriorities[i] as number,
        nowMs - (timestamps[i] as number),
        parts.halfLives[i] as number,
        parts.confidences[i] as number,
      ),
      floor: parts.floors[i] as number,
    });
  }
  const ranked: Ranked[] = [];
  for (const group of byTier) {
    group.sort(
      (a, b) =>
        b.score - a.score ||
        b.object.ts.localeCompare(a.object.ts) ||
        a.object.objectId.localeCompare(b.object.objectId),
    );
    for (const r of group) ranked.push(r);
  }
  return { ranked, omitted };
}

/**
 * Hybrid relevance of a group's objects (seed 004's semantic signal): the BM25 ranking of the group's
 * texts and the vector index's ranking of its nearest objects, fused by reciprocal rank as episodes are
 * (src/retrieval/episodes.ts: the same k, vector weight and cosine floor), spread over [0, 1]. BM25 ranks
 * every candidate the compile holds, so it is the lexical retriever's full answer rather than a top k.
 * `nearest` holds the positions the vector ranking brought in, relevant even with no word in common.
 */
function hybridSimilarity(
  objects: readonly ContextObject[],
  relevance: readonly number[],
  similar: ReadonlyMap<string, number> | undefined,
  memos: RankMemos,
): { similarity: Float64Array; nearest: Set<number> } {
  const lexical: number[] = [];
  for (let i = 0; i < relevance.length; i++) if ((relevance[i] as number) > 0) lexical.push(i);
  lexical.sort((a, b) => (relevance[b] as number) - (relevance[a] as number) || a - b);
  const nearest = new Set<number>();
  const byCosine: number[] = [];
  if (similar?.size) {
    const at = positionsOf(objects, memos);
    const cosines = new Map<number, number>();
    for (const [id, cosine] of similar) {
      const i = at.get(id);
      if (i !== undefined && cosine >= MIN_VECTOR_SIMILARITY) cosines.set(i, cosine);
    }
    for (const i of cosines.keys()) {
      nearest.add(i);
      byCosine.push(i);
    }
    byCosine.sort((a, b) => (cosines.get(b) as number) - (cosines.get(a) as number) || a - b);
  }
  const similarity = fusedByPosition([lexical, byCosine], objects.length, EPISODE_RRF_K, [1, VECTOR_WEIGHT]);
  let top = 0;
  for (const score of similarity) if (score > top) top = score;
  const depth = Math.max(FUSION_DEPTH, lexical.length);
  for (let i = 0; i < similarity.length; i++) {
    const score = similarity[i] as number;
    if (score > 0) similarity[i] = spreadFused(score, top, EPISODE_RRF_K, depth);
  }
  return { similarity, nearest };
}

/** Each object's position in its list by id, kept per list. */
function positionsOf(objects: readonly ContextObject[], memos: RankMemos): Map<string, number> {
  let found = memos.positions.get(objects);
  if (!found) {
    found = new Map(objects.map((o, i) => [o.objectId, i]));
    memos.positions.set(objects, found);
  }
  return found;
}

const TIER_ORDER: Record<PriorityTierName, number> = {
  critical: 0,
  important: 1,
  useful: 2,
  minimal: 3,
  irrelevant: 4,
};

export const tiers = {
  facts: (_: ContextObject, relevant: boolean): PriorityTierName => (relevant ? "important" : "minimal"),
  items: (_: ContextObject, relevant: boolean): PriorityTierName => (relevant ? "important" : "minimal"),
  working: (_: ContextObject, relevant: boolean): PriorityTierName => (relevant ? "important" : "irrelevant"),
  environment: (): PriorityTierName => "important",
  messages: (): PriorityTierName => "useful",
};
