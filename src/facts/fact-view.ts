import type { StoredFactView } from "../api/schemas/facts";
import type { FactVersion } from "../domain/fact-version";

/** The public shape of a stored fact version. */
export function toFactView(row: FactVersion): StoredFactView {
  return {
    id: row.id,
    key: row.key,
    value: JSON.parse(row.valueJson),
    project_id: row.projectId,
    thread_id: row.threadId,
    user_id: row.userId,
    memory_type: row.memoryType,
    source: { type: row.sourceType, authority: row.sourceAuthority, identity: row.sourceIdentity },
    authority_rank: row.authorityRank,
    scope: row.scope,
    scope_id: row.scopeId,
    is_valid: row.isValid,
    supersedes: row.supersedes,
    superseded_by: row.supersededBy,
    contradiction_status: row.contradictionStatus,
    status_reason: row.statusReason,
    depends_on: JSON.parse(row.dependsOnJson) as string[],
    needs_review: row.needsReview,
    is_constraint: row.isConstraint,
    constraint_type: row.constraintType,
    classification: row.classification,
    allow_roles: JSON.parse(row.allowRolesJson) as string[],
    deny_roles: JSON.parse(row.denyRolesJson) as string[],
    valid_from: row.validFrom,
    valid_until: row.validUntil,
    tx_start: row.txStart,
    tx_end: row.txEnd,
    tokens: row.tokens,
  };
}
