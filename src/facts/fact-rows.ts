import { getTableColumns } from "drizzle-orm";
import { facts, type StoredFactRow } from "./fact-schema";

/**
 * A facts row as D1 hands it over (column names as keys) mapped to the record drizzle would make of it,
 * field for field and in the table's column order. A compile's candidate search reads up to 1,500 rows
 * of forty columns; drizzle's generic mapping (objects turned back into arrays, then a decoder looked up
 * per cell) cost more than D1's own answer, so the candidate read maps them here in one literal.
 * Booleans decode as drizzle's boolean mode does (1 is true); text and integers pass through.
 * test/fact-rows.test.ts checks it against drizzle's own mapping.
 */
export function storedFactRow(raw: Record<string, unknown>): StoredFactRow {
  return {
    projectId: raw.project_id as string,
    id: raw.id as string,
    lineageId: raw.lineage_id as string,
    key: raw.key as string,
    valueJson: raw.value_json as string,
    content: raw.content as string,
    tokens: raw.tokens as number,
    memoryType: raw.memory_type as StoredFactRow["memoryType"],
    userId: raw.user_id as string | null,
    threadId: raw.thread_id as string,
    sourceType: raw.source_type as string,
    sourceAuthority: raw.source_authority as string | null,
    sourceIdentity: raw.source_identity as string | null,
    authorityRank: raw.authority_rank as number,
    scope: raw.scope as StoredFactRow["scope"],
    scopeId: raw.scope_id as string | null,
    supersedes: raw.supersedes as string | null,
    supersededBy: raw.superseded_by as string | null,
    isValid: bool(raw.is_valid) as boolean,
    contradictionStatus: raw.contradiction_status as StoredFactRow["contradictionStatus"],
    statusReason: raw.status_reason as string | null,
    dependsOnJson: raw.depends_on_json as string,
    needsReview: bool(raw.needs_review) as boolean,
    isConstraint: bool(raw.is_constraint) as boolean,
    constraintType: raw.constraint_type as string | null,
    classification: raw.classification as StoredFactRow["classification"],
    allowRolesJson: raw.allow_roles_json as string,
    denyRolesJson: raw.deny_roles_json as string,
    validFrom: raw.valid_from as string,
    validUntil: raw.valid_until as string | null,
    txStart: raw.tx_start as string,
    txEnd: raw.tx_end as string | null,
    summary: raw.summary as string,
    summaryTokens: raw.summary_tokens as number,
    micro: raw.micro as string,
    microTokens: raw.micro_tokens as number,
    contextJson: raw.context_json as string,
    revision: raw.revision as number,
  };
}

/** Drizzle's boolean mode: null stays null, anything else is true when it is the number 1. */
const bool = (value: unknown) => (value === null || value === undefined ? null : Number(value) === 1);

/** The columns of a facts row that may hold NULL, as D1 names them. */
const NULLABLE_COLUMNS = Object.values(getTableColumns(facts))
  .filter((column) => !column.notNull)
  .map((column) => column.name);

/** The shorter forms of a fact that are its content itself, as they are for most facts (prepare-fact.ts). */
const CONTENT_FORMS = ["summary", "micro"] as const;

/**
 * A facts row as the project's fact replica keeps and sends it (src/project-index/fact-replica.ts):
 * without its NULL columns, and without a shorter form that is the content itself. Much of a row is
 * such columns (a short fact's summary and micro form repeat its content), and a new question's answer
 * carries some 60 rows from one object to another (130 when this was measured), each read, copied and
 * parsed: lean, a row of bench:scale's facts is 830 bytes of JSON instead of 1,137. `fullFactRow` gives
 * the row back as D1 holds it.
 */
export function leanFactRow(raw: Record<string, unknown>): Record<string, unknown> {
  const lean: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(raw)) {
    if (value === null) continue;
    if (value === raw.content && (CONTENT_FORMS as readonly string[]).includes(column)) continue;
    lean[column] = value;
  }
  return lean;
}

/** The row a lean one stands for (a whole row is given back as it is); fills in `lean` itself. */
export function fullFactRow(lean: Record<string, unknown>): Record<string, unknown> {
  for (const column of NULLABLE_COLUMNS) if (!(column in lean)) lean[column] = null;
  for (const form of CONTENT_FORMS) if (!(form in lean)) lean[form] = lean.content;
  return lean;
}
