import type { EntityAliasRow, EntityHistoryRow, EntityReviewRow, EntityRow } from "./entity-schema";

/** The registry's rows as the entity routes publish them (src/api/schemas/entities.ts). */

export const aliasView = (a: EntityAliasRow) => ({
  alias: a.alias,
  norm: a.norm,
  source: a.source,
  added_at: a.addedAt,
});

export function entityView(row: EntityRow, aliases: readonly EntityAliasRow[]) {
  return {
    id: row.id,
    project_id: row.projectId,
    canonical_name: row.canonicalName,
    entity_type: row.entityType,
    status: row.status,
    merged_into: row.mergedInto,
    aliases: aliases.filter((a) => a.entityId === row.id && a.projectId === row.projectId).map(aliasView),
    metadata: JSON.parse(row.metadataJson) as Record<string, unknown>,
    provenance: JSON.parse(row.provenanceJson) as Record<string, unknown>,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export function reviewView(row: EntityReviewRow, names: ReadonlyMap<string, string>) {
  return {
    id: row.id,
    project_id: row.projectId,
    entity_id: row.entityId,
    entity_name: names.get(row.entityId) ?? null,
    candidate_id: row.candidateId,
    candidate_name: names.get(row.candidateId) ?? null,
    runner_up_id: row.runnerUpId,
    score: row.score,
    features: JSON.parse(row.featuresJson) as Record<string, unknown>,
    status: row.status,
    reason: row.reason,
    created_at: row.createdAt,
    decided_at: row.decidedAt,
  };
}

export const historyView = (row: EntityHistoryRow) => ({
  event: row.event,
  other_entity_id: row.otherId,
  detail: JSON.parse(row.detailJson) as Record<string, unknown>,
  at: row.at,
});
