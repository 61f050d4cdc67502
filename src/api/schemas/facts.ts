import { z } from "@hono/zod-openapi";
import { CONTRADICTION_STATUSES } from "../../domain/contradiction";
import { MEMORY_TYPES } from "../../domain/facts";
import { decodeCursor } from "../../facts/fact-cursor";
import { isoDateTime } from "./common";
import { Classification, Scope } from "./vocabulary";

/** Stored facts as the facts routes and thread state publish them, and the facts query. */

export const StoredFact = z
  .object({
    id: z.string().openapi({
      description:
        "The fact event's id; for a fact extraction read from a message, `xt:<thread>:<message>:<key>` (or `xh:<that text, id-safe and cut>:<SHA-256 hex>` when a part holds a `:` or the id would pass 128 characters). Facts extracted before thread ids were part of them keep `x:<message>:<key>`.",
      example: "xt:support-42:m7:project_budget",
    }),
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

/** Names the viewer a project-wide read answers for (src/facts/fact-visibility.ts). */
export const ViewerQuery = z.object({
  as_user: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .openapi({ description: "Read as this user: their own private facts are included." }),
  roles: z
    .string()
    .max(2000)
    .regex(/^[^,]{1,100}(,[^,]{1,100}){0,49}$/, "must be 1-50 comma-separated roles of 1-100 characters")
    .optional()
    .openapi({
      description:
        "Comma-separated roles, titles and clearances the viewer holds (`hr,vp,secrets:read`). Without `as_user` or `roles`, only what every project member may see is returned: shared, public facts without role lists, secrets redacted.",
    }),
});

export const MAX_FACT_PAGE = 1000;

export const FactQuery = ViewerQuery.extend({
  key: z.string().min(1).max(200).optional(),
  project_id: z.string().min(1).max(128).optional(),
  as_of: isoDateTime.optional().openapi({ description: "Transaction time: what the system believed then." }),
  valid_at: isoDateTime.optional().openapi({ description: "Valid time: what was true in the world then." }),
  include_history: z.enum(["true", "false"]).optional(),
  limit: z
    .string()
    .regex(/^\d{1,4}$/, "must be a whole number")
    .refine((v) => Number(v) >= 1 && Number(v) <= MAX_FACT_PAGE, `must be between 1 and ${MAX_FACT_PAGE}`)
    .optional()
    .openapi({ description: `Versions per page, at most ${MAX_FACT_PAGE} (the default).`, example: "100" }),
  cursor: z
    .string()
    .max(2000)
    .refine((v) => decodeCursor(v) !== undefined, "is not a cursor this API issued")
    .optional()
    .openapi({ description: "`next_cursor` of the previous page, with the same filters." }),
});

export const FactList = z
  .object({
    facts: z.array(StoredFact),
    next_cursor: z
      .string()
      .nullable()
      .openapi({ description: "Pass as `cursor` for the next page; null on the last page." }),
  })
  .openapi("FactList");

export type StoredFactView = z.infer<typeof StoredFact>;
