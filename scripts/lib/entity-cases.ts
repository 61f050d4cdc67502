import type { EntityMetadata, EntityThresholds, EntityType, MentionOrigin } from "../../src/domain/entities";
import { MemoryRegistry } from "../../src/entities/memory-registry";
import { ruleMentions } from "../../src/entities/mentions/rule-mention-extractor";
import { registryEntity } from "../../src/entities/registry-entity";
import { resolveMentions } from "../../src/entities/resolution/resolve";

/**
 * The labelled entity-resolution set (test/fixtures/entity-resolution.json) and its scoring, shared by
 * `npm run bench:entities` and the test that keeps it free of false merges. Each case resolves one text
 * against a fresh copy of the registry, with the offline rules and the tenant-default thresholds.
 */
export interface CaseFile {
  registry: { id: string; name: string; type: EntityType; aliases?: string[]; metadata?: EntityMetadata }[];
  cases: { kind: string; text: string; origin?: MentionOrigin; mention: string; expect: string | null }[];
}

export interface CaseResult {
  kind: string;
  text: string;
  mention: string;
  expect: string | null;
  /** bind | review | new | skip, or `unseen` when the rules found no such mention. */
  decision: string;
  /** The registry entity bound to, or the review's candidate. */
  entity: string | null;
  score: number | null;
}

export interface Figures {
  cases: number;
  /** Binds to the entity the label names / every bind to an existing entity. */
  precision: number;
  /** Binds to the labelled entity / cases whose label names one. */
  recall: number;
  falseMerges: CaseResult[];
  reviews: number;
  /** Reviews whose candidate is the labelled entity: what a reviewer's acceptance would add. */
  reviewsOnTarget: number;
  results: CaseResult[];
}

export function runCases(file: CaseFile, thresholds: EntityThresholds): Figures {
  const results = file.cases.map((c): CaseResult => {
    const registry = new MemoryRegistry(file.registry.map((spec) => registryEntity(spec)));
    const mentions = ruleMentions({ text: c.text, origin: c.origin ?? "message" });
    const plan = resolveMentions(
      [{ key: "case", mentions, context: {}, provenance: {} }],
      registry,
      thresholds,
    );
    const outcome = plan.outcomes.find((o) => o.mention.text === c.mention);
    const review = plan.reviews.find((r) => r.entityId === outcome?.entityId);
    const existing = (id: string | null) => (id && file.registry.some((e) => e.id === id) ? id : null);
    return {
      kind: c.kind,
      text: c.text,
      mention: c.mention,
      expect: c.expect,
      decision: outcome?.decision ?? "unseen",
      entity: outcome?.decision === "bind" ? existing(outcome.entityId) : (review?.candidateId ?? null),
      score: outcome?.score ?? null,
    };
  });
  const binds = results.filter((r) => r.decision === "bind" && r.entity !== null);
  const right = binds.filter((r) => r.entity === r.expect);
  const labelled = results.filter((r) => r.expect !== null);
  const reviews = results.filter((r) => r.decision === "review");
  return {
    cases: results.length,
    precision: binds.length ? right.length / binds.length : 1,
    recall: labelled.length ? right.length / labelled.length : 1,
    falseMerges: binds.filter((r) => r.entity !== r.expect),
    reviews: reviews.length,
    reviewsOnTarget: reviews.filter((r) => r.expect !== null && r.entity === r.expect).length,
    results,
  };
}
