import type { PriorityTierName } from "../../domain/compilation";
import type { TaskTypeName } from "../../domain/tasks";
import { EPISODE_RRF_K, FUSION_DEPTH, MIN_VECTOR_SIMILARITY, VECTOR_WEIGHT } from "../../retrieval/episodes";
import { fusedByPosition, spreadFused } from "../../retrieval/fuse";
import { DAY_MS, recencyWeight, weightedScore } from "../../retrieval/score";
import type { ContextObject, Omission } from "../context-object";
import type { LeadingRun } from "../list-edits";
import { type GroupParts, type GroupPartsMemos, groupParts, instant, TYPE_PRIORITY } from "./group-parts";

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

/** The memo tables this file reads (CompilerMemos holds them). */
export interface RankMemos extends GroupPartsMemos {
  /** Each list split by trust (splitByTrust). */
  trustSplits: WeakMap<readonly ContextObject[], TrustSplit>;
  /** The split of the run of held facts the lists begin with. */
  trustRuns: LeadingRun<ContextObject, TrustSplit>;
}

/** A list's objects at authority level 4 (retrieved, untrusted) and the rest, in order. */
export interface TrustSplit {
  trusted: ContextObject[];
  untrusted: ContextObject[];
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
 * A list split into objects at authority level 4 (retrieved, untrusted) and the rest, in order; the
 * same two lists for the same list, so their lexical index above carries over between compiles.
 */
export function splitByTrust(objects: readonly ContextObject[], memos: RankMemos): TrustSplit {
  let found = memos.trustSplits.get(objects);
  if (!found) {
    // The run of held facts a large project's lists begin with is split once (LeadingRun).
    const run = memos.trustRuns.of(objects, (list) => trustSplit(list, 0));
    const own = trustSplit(objects, run?.length ?? 0);
    found = run
      ? {
          trusted: run.value.trusted.concat(own.trusted),
          untrusted: run.value.untrusted.concat(own.untrusted),
        }
      : own;
    memos.trustSplits.set(objects, found);
  }
  return found;
}

function trustSplit(objects: readonly ContextObject[], from: number): TrustSplit {
  const split: TrustSplit = { trusted: [], untrusted: [] };
  for (let i = from; i < objects.length; i++) {
    const o = objects[i] as ContextObject;
    (o.authorityLevel === 4 ? split.untrusted : split.trusted).push(o);
  }
  return split;
}

/** Ranks one group of objects (facts, items, working set …) against the query. */
export function rankGroup(
  objects: ContextObject[],
  ctx: RankContext,
  tierOf: (object: ContextObject, relevant: boolean) => PriorityTierName,
): { ranked: Ranked[]; omitted: Omission[] } {
  const parts = groupParts(objects, ctx.memos);
  const { texts, whys, timestamps } = parts;
  const relevance = texts.scores(ctx.query);
  // Only client-stated Context Objects carry why_it_matters; most compiles have none to score.
  const why = whys ? whys.scores(ctx.query) : [];
  const { similarity, nearest } = hybridSimilarity(objects, relevance, ctx.similar, parts.prefix);
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
  prefix?: GroupParts["prefix"],
): { similarity: Float64Array; nearest: Set<number> } {
  const lexical: number[] = [];
  for (let i = 0; i < relevance.length; i++) if ((relevance[i] as number) > 0) lexical.push(i);
  lexical.sort((a, b) => (relevance[b] as number) - (relevance[a] as number) || a - b);
  const nearest = new Set<number>();
  const byCosine: number[] = [];
  if (similar?.size) {
    // Each id's cosine goes to its last position in the list. Found by one look-up per object in the
    // small map of nearest ids rather than by an index of the list by id: a large project's candidate
    // list changes with every question, and indexing it cost more than ranking it.
    const cosines = new Map<number, number>();
    const placed = new Set<string>();
    // Within a kept prefix (group-parts.ts), an id's last place is known: only the objects after it
    // are read, and ids they do not hold are placed where the prefix last holds them.
    const from = prefix?.length ?? 0;
    for (let i = objects.length - 1; i >= from; i--) {
      const id = (objects[i] as ContextObject).objectId;
      const cosine = similar.get(id);
      if (cosine === undefined || placed.has(id)) continue;
      placed.add(id);
      if (cosine >= MIN_VECTOR_SIMILARITY) cosines.set(i, cosine);
    }
    if (prefix) {
      for (const [id, cosine] of similar) {
        const i = prefix.lastAt.get(id);
        if (i === undefined || placed.has(id)) continue;
        placed.add(id);
        if (cosine >= MIN_VECTOR_SIMILARITY) cosines.set(i, cosine);
      }
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
