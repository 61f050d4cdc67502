import { z } from "@hono/zod-openapi";
import { CONTRADICTION_STATUSES } from "../../domain/contradiction";
import { MEMORY_TYPES } from "../../domain/facts";
import { isoDateTime } from "./common";
import { Classification, Scope } from "./vocabulary";

/** Stored facts as the facts routes and thread state publish them, and the facts query. */

export const StoredFact = z
  .object({
    id: z.string(),
    key: z.string(),
    value: z.unknown(),
    project_id: z.string(),
    thread_id: z.string(),
    user_id: z.string().nullable(),
    memory_type: z.enum(MEMORY_TYPES),
    source: z.object({ type: z.string(), authority: z.string().nullable(), identity: z.string().nullable() }),
    authority_rank: z.number().int(),
    scope: Scope,
    scope_id: z.string().nullable(),
    is_valid: z.boolean(),
    supersedes: z.string().nullable(),
    superseded_by: z.string().nullable(),
    contradiction_status: z.enum(CONTRADICTION_STATUSES),
    status_reason: z.string().nullable(),
    depends_on: z.array(z.string()),
    needs_review: z.boolean(),
    is_constraint: z.boolean(),
    constraint_type: z.string().nullable(),
    classification: Classification,
    allow_roles: z.array(z.string()),
    deny_roles: z.array(z.string()),
    valid_from: z.string(),
    valid_until: z.string().nullable(),
    tx_start: z.string(),
    tx_end: z.string().nullable(),
    tokens: z.number().int(),
  })
  .openapi("Fact");

export const FactHistory = z
  .object({
    id: z.string(),
    current: StoredFact.nullable(),
    chain: z
      .array(z.string())
      .openapi({ description: "Fact ids from the oldest version to the current one." }),
    versions: z.array(StoredFact),
  })
  .openapi("FactHistory");

export const FactQuery = z.object({
  key: z.string().min(1).max(200).optional(),
  project_id: z.string().min(1).max(128).optional(),
  as_of: isoDateTime.optional().openapi({ description: "Transaction time: what the system believed then." }),
  valid_at: isoDateTime.optional().openapi({ description: "Valid time: what was true in the world then." }),
  include_history: z.enum(["true", "false"]).optional(),
});

export const FactList = z.object({ facts: z.array(StoredFact) }).openapi("FactList");

export type StoredFactView = z.infer<typeof StoredFact>;
