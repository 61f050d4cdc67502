import type { EntityThresholds, Mention } from "../../domain/entities";
import type { Scored } from "./score";

/**
 * Seed 001's decision on a mention's best candidate: bind (≥ bind threshold: the mention is that entity,
 * its words become an alias), review (between the thresholds: a pending node and a review item), or new
 * (≤ review threshold: a canonical entity of its own).
 *
 * False merges cost more than missed ones, so two guards come first. When the runner-up is itself a
 * plausible match and within AMBIGUITY of the best, the best may not bind: two people called Sam make
 * "Sam" a question, not an answer. And a weak mention (a lone capitalised word, an acronym, the words
 * of a fact key) never creates an entity; from a key it is not even reviewed, as key words match names
 * by accident ("atlas_budget" in a project with no Atlas).
 */
export const AMBIGUITY = 0.05;

export type Decision =
  | { kind: "bind"; best: Scored; runnerUp?: Scored }
  | { kind: "review"; best: Scored; runnerUp?: Scored }
  | { kind: "new" }
  | { kind: "skip" };

export function decide(mention: Mention, scored: readonly Scored[], thresholds: EntityThresholds): Decision {
  const ranked = [...scored].sort((a, b) => b.score - a.score || (a.entity.id < b.entity.id ? -1 : 1));
  const best = ranked[0];
  const runnerUp = ranked[1];
  const create: Decision = mention.strength === "strong" ? { kind: "new" } : { kind: "skip" };
  if (!best || best.score <= thresholds.review) return create;
  const contested =
    runnerUp !== undefined && runnerUp.score > thresholds.review && best.score - runnerUp.score < AMBIGUITY;
  const withRunnerUp = runnerUp ? { runnerUp } : {};
  if (best.score >= thresholds.bind && !contested) return { kind: "bind", best, ...withRunnerUp };
  if (mention.origin === "fact_key" && mention.strength === "weak") return { kind: "skip" };
  return { kind: "review", best, ...withRunnerUp };
}
