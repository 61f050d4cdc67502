import type { ObjectTypeName, PriorityTierName, TaskTypeName } from "../../api/schemas";
import type { ContextObject, Omission } from "../context-object";
import { LazyCorpus } from "../lexical";

/**
 * Pass 5: relevance and priority tiers. Lexical relevance (BM25) is blended with seed 004's composite
 * score — semantic match first, then type priority, recency on the object's half-life, outcome, usage
 * and confidence — and every object gets a tier:
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

const DAY_MS = 86_400_000;

/** Parsed timestamps: every compile scores every object against the same few thousand of them. */
const instants = new Map<string, number>();

function instant(ts: string): number {
  let parsed = instants.get(ts);
  if (parsed === undefined) {
    if (instants.size >= 50_000) instants.clear();
    parsed = Date.parse(ts);
    instants.set(ts, parsed);
  }
  return parsed;
}

export function compositeScore(
  object: ContextObject,
  semantic: number,
  now: string,
  nowMs = instant(now),
  tsMs = instant(object.ts),
): number {
  return scoreOf(
    semantic,
    TYPE_PRIORITY[object.objectType],
    nowMs - tsMs,
    object.decayHalfLifeDays ?? 30,
    object.confidence,
  );
}

/** compositeScore from the object's parts, as rankGroup keeps them per list. */
function scoreOf(
  semantic: number,
  typePriority: number,
  ageMs: number,
  halfLifeDays: number,
  confidence: number,
): number {
  const ageDays = Math.max(0, ageMs / DAY_MS) || 0;
  const recency = Math.exp((-Math.LN2 * ageDays) / halfLifeDays);
  const outcome = 1;
  const usage = 1;
  return (
    semantic * 0.5 + typePriority * 0.15 + recency * 0.15 + outcome * 0.1 + usage * 0.05 + confidence * 0.05
  );
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
}

/**
 * What ranking reads of a group's objects, kept per list: a warm thread ranks the same settled lists
 * (src/compiler/compile-cache.ts) against every query. Besides the lexical index of the texts and
 * why_it_matters, each object's query-independent parts sit in arrays by position, so ranking a few
 * thousand background objects reads those rather than the objects themselves, scattered over the heap.
 * Lists are read as immutable.
 */
interface GroupParts {
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

const corpora = new WeakMap<readonly ContextObject[], GroupParts>();

function corporaOf(objects: readonly ContextObject[]): GroupParts {
  let found = corpora.get(objects);
  if (!found) {
    found = {
      texts: new LazyCorpus(objects.map((o) => o.text)),
      whys: objects.some((o) => o.whyItMatters)
        ? new LazyCorpus(objects.map((o) => o.whyItMatters ?? ""))
        : null,
      timestamps: Float64Array.from(objects, (o) => instant(o.ts)),
      typePriorities: Float64Array.from(objects, (o) => TYPE_PRIORITY[o.objectType]),
      halfLives: Float64Array.from(objects, (o) => o.decayHalfLifeDays ?? 30),
      confidences: Float64Array.from(objects, (o) => o.confidence),
      conditional: Uint8Array.from(objects, (o) => (o.taskTypes.length > 0 || o.whyItMatters ? 1 : 0)),
      critical: Uint8Array.from(objects, (o) => (isCritical(o) ? 1 : 0)),
      floors: Float64Array.from(objects, (o) =>
        o.forms ? Math.min(o.tokens, o.forms.summaryTokens, o.forms.microTokens) : o.tokens,
      ),
    };
    corpora.set(objects, found);
  }
  return found;
}

const trustSplits = new WeakMap<
  readonly ContextObject[],
  { trusted: ContextObject[]; untrusted: ContextObject[] }
>();

/**
 * A list split into objects at authority level 4 (retrieved, untrusted) and the rest, in order; the
 * same two lists for the same list, so their lexical index above carries over between compiles.
 */
export function splitByTrust(objects: readonly ContextObject[]) {
  let found = trustSplits.get(objects);
  if (!found) {
    found = {
      trusted: objects.filter((o) => o.authorityLevel !== 4),
      untrusted: objects.filter((o) => o.authorityLevel === 4),
    };
    trustSplits.set(objects, found);
  }
  return found;
}

/** Ranks one group of objects (facts, items, working set …) against the query. */
export function rankGroup(
  objects: ContextObject[],
  ctx: RankContext,
  tierOf: (object: ContextObject, relevant: boolean) => PriorityTierName,
): { ranked: Ranked[]; omitted: Omission[] } {
  const parts = corporaOf(objects);
  const { texts, whys, timestamps } = parts;
  const relevance = texts.scores(ctx.query);
  // Only client-stated Context Objects carry why_it_matters; most compiles have none to score.
  const why = whys ? whys.scores(ctx.query) : [];
  let top = 0;
  for (const r of relevance) if (r > top) top = r;
  // Tier is the first sort key: each tier is gathered apart and sorted on its own (the same order
  // as one sort over all, which is stable), sparing thousands of tier comparisons per compile.
  const byTier: Ranked[][] = Object.values(TIER_ORDER).map(() => []);
  const omitted: Omission[] = [];
  const nowMs = instant(ctx.now);
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
    const tier = parts.critical[i] ? "critical" : tierOf(object, r > 0);
    if (tier === "irrelevant") {
      omitted.push({ object, reason: "irrelevant", detail: "no overlap with the query", tier });
      continue;
    }
    (byTier[TIER_ORDER[tier]] as Ranked[]).push({
      object,
      tier,
      relevance: r,
      score: scoreOf(
        top > 0 ? r / top : 0,
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
