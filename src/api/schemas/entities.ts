import { z } from "@hono/zod-openapi";
import { ENTITY_EVENTS, ENTITY_STATUSES, ENTITY_TYPES, REVIEW_STATUSES } from "../../domain/entities";
import { normalizeName } from "../../entities/names";
import { decodePosition } from "../../http/cursor";
import { shortText, slugId } from "./common";
import { StoredFact, ViewerQuery } from "./facts";

/** The canonical entity registry (seed 001): entities, their aliases, facts and history, and reviews. */

export const MAX_ENTITY_PAGE = 500;
export const DEFAULT_ENTITY_PAGE = 100;

export const EntityType = z.enum(ENTITY_TYPES).openapi("EntityType");
export const EntityStatus = z.enum(ENTITY_STATUSES).openapi("EntityStatus");

/** One problem per bad limit: a word is not a number, so its range is not reported besides. */
const pageLimit = z
  .string()
  .superRefine((v, ctx) => {
    if (!/^\d+$/.test(v)) ctx.addIssue({ code: "custom", message: "must be a whole number" });
    else if (Number(v) < 1 || Number(v) > MAX_ENTITY_PAGE) {
      ctx.addIssue({ code: "custom", message: `must be between 1 and ${MAX_ENTITY_PAGE}` });
    }
  })
  .optional()
  .openapi({ description: `Per page, at most ${MAX_ENTITY_PAGE}; ${DEFAULT_ENTITY_PAGE} by default.` });

/**
 * A cursor holding a position of `length` strings (each part as `valid` says) and the identity of the
 * list it was issued for, which the handler compares with the request's own (`listIdentity`).
 */
const cursorOf = (length: number, valid: (parts: string[]) => boolean = () => true) =>
  z
    .string()
    .max(2000)
    .refine((v) => {
      const parts = decodePosition(v, length + 1);
      return parts !== undefined && valid(parts);
    }, "is not a cursor this API issued")
    .optional()
    .openapi({
      description:
        "`next_cursor` of the previous page, with the same entity and filters (another list's cursor is a 400).",
    });

const projectParam = slugId()
  .optional()
  .openapi({ description: "The project; without it, every project of the tenant is searched." });

export const EntityParams = z.object({
  tenant: z.string().openapi({ param: { name: "tenant", in: "path" }, example: "dev" }),
  id: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: "id", in: "path" } }),
});

export const EntityListQuery = z.object({
  project_id: projectParam,
  type: EntityType.optional(),
  name: shortText(200)
    // Punctuation alone ("---", "%") normalises to nothing, which would match every entity.
    .refine((v) => normalizeName(v) !== "", "must hold a letter or a digit")
    .optional()
    .openapi({ description: "Entities any of whose names starts with this, compared normalised." }),
  status: EntityStatus.optional().openapi({ description: "Active and pending entities when absent." }),
  limit: pageLimit,
  cursor: cursorOf(3),
});

export const EntityAliasView = z.object({
  alias: z.string(),
  norm: z.string().openapi({ description: "The normal form names are compared in." }),
  source: z.string().openapi({ description: "canonical, observed, derived, metadata, review or merge" }),
  added_at: z.string(),
});

export const EntityView = z
  .object({
    id: z.string(),
    project_id: z.string(),
    canonical_name: z.string(),
    entity_type: EntityType,
    status: EntityStatus,
    merged_into: z.string().nullable(),
    aliases: z.array(EntityAliasView),
    metadata: z.record(z.string(), z.unknown()),
    provenance: z.record(z.string(), z.unknown()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Entity");

const nextCursor = z
  .string()
  .nullable()
  .openapi({ description: "Pass as `cursor` for the next page; null on the last." });

export const EntityList = z
  .object({
    entities: z.array(EntityView),
    next_cursor: nextCursor,
  })
  .openapi("EntityList");

export const ReviewView = z
  .object({
    id: z.string(),
    project_id: z.string(),
    entity_id: z.string().openapi({ description: "The pending node." }),
    entity_name: z.string().nullable(),
    candidate_id: z.string().openapi({ description: "The entity it may be." }),
    candidate_name: z.string().nullable(),
    runner_up_id: z.string().nullable().openapi({ description: "A close second candidate, if any." }),
    score: z.number(),
    features: z.record(z.string(), z.unknown()).openapi({ description: "The similarity score's parts." }),
    status: z.enum(REVIEW_STATUSES),
    reason: z.string().nullable(),
    created_at: z.string(),
    decided_at: z.string().nullable(),
  })
  .openapi("EntityReview");

export const EntityHistoryEntry = z.object({
  event: z.enum(ENTITY_EVENTS),
  other_entity_id: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()),
  at: z.string(),
});

export const EntityMessageRef = z
  .object({
    thread_id: z.string(),
    message_id: z.string(),
    mention: z.string().openapi({
      description:
        "The name the message used, in its normal form (lower case, accents and punctuation dropped, a leading determiner dropped): `kestrel service`.",
    }),
  })
  .openapi("EntityMessageRef");

const MessageCount = z.number().int().openapi({ description: "Every message reference the entity has." });

export const EntityDetail = EntityView.extend({
  facts: z.array(StoredFact).openapi({
    description:
      "Fact versions that refer to the entity (the newest 100), as far as the viewer (`as_user`, `roles`) may see: without one, only shared facts every project member may see, so a thread user's own facts need `as_user`. `messages` are not filtered by viewer.",
  }),
  facts_truncated: z.boolean(),
  facts_filtered: z.boolean().openapi({
    description:
      "True when the request named no viewer (`as_user`, `roles`): `facts` then holds only what every project member may see, and may be empty while the entity has facts.",
  }),
  messages: z.array(EntityMessageRef).openapi({
    description:
      "Messages and tool output that refer to the entity (the first 100: by thread, newest first in each); `GET /entities/{id}/messages` pages through them all.",
  }),
  message_count: MessageCount,
  history: z
    .array(EntityHistoryEntry)
    .openapi({ description: "Newest first: creation, aliases, merges, splits, reviews." }),
  reviews: z.array(ReviewView),
}).openapi("EntityDetail");

export const EntityDetailQuery = ViewerQuery.extend({ project_id: projectParam });

export const ProjectQuery = z.object({ project_id: projectParam });

/** A message reference's position: thread, arrival number (a whole number) and name. */
const messageCursor = cursorOf(3, ([, seq]) => /^\d{1,15}$/.test(seq ?? ""));

export const EntityMessagesQuery = ProjectQuery.extend({ limit: pageLimit, cursor: messageCursor });

export const EntityMessageList = z
  .object({
    messages: z
      .array(EntityMessageRef)
      .openapi({ description: "By thread, newest first in each (by arrival), then by name." }),
    message_count: MessageCount,
    next_cursor: nextCursor,
  })
  .openapi("EntityMessageList");

export const MergeBody = z
  .object({
    entity_id: z
      .string()
      .min(1)
      .max(200)
      .openapi({ description: "The entity merged into this one; it keeps its id, with status `merged`." }),
    reason: shortText(500).optional(),
    allow_type_change: z.boolean().optional().openapi({
      description:
        "Merge two entities of other types (a person and a system): refused with a 409 naming `entity_id` without it. An untyped entity (`other`) merges with any type and the survivor takes the type; a change of type is recorded in the history.",
    }),
  })
  .openapi("EntityMerge");

export const SplitBody = z
  .object({
    aliases: z.array(shortText(500)).min(1).max(100).openapi({
      description: "Aliases of this entity that move to a new one, with the facts that used them.",
    }),
    canonical_name: shortText(500).optional().openapi({
      description:
        "The new entity's name; the first alias by default. One of the moved aliases, or a name no entity of the project goes by (this one's kept names included).",
    }),
    entity_type: EntityType.optional().openapi({
      description: "The new entity's type; this one's by default.",
    }),
  })
  .openapi("EntitySplit");

export const SplitResult = z.object({ entity: EntityView, created: EntityView }).openapi("EntitySplitResult");

export const ReviewListQuery = z.object({
  project_id: projectParam,
  status: z.enum(REVIEW_STATUSES).optional().openapi({ description: "`open` by default." }),
  limit: pageLimit,
  cursor: cursorOf(3),
});

export const ReviewList = z
  .object({ reviews: z.array(ReviewView), next_cursor: z.string().nullable() })
  .openapi("EntityReviewList");

export const ReviewDecisionBody = z
  .object({
    decision: z.enum(["accept", "reject"]).openapi({
      description:
        "`accept`: the pending node is merged into the candidate; `reject`: it becomes an entity of its own.",
    }),
    reason: shortText(500).optional(),
  })
  // An unknown key is a mistake to report (a misspelt "reason"), as on the back-fill's body.
  .strict()
  .openapi("EntityReviewDecision");

export const ReviewDecisionResult = z
  .object({
    review: ReviewView,
    entity: EntityView.openapi({ description: "The entity the mention now resolves to." }),
  })
  .openapi("EntityReviewResult");

/** Messages one mention backfill call reads by default, and at most. */
export const DEFAULT_BACKFILL_MESSAGES = 500;
export const MAX_BACKFILL_MESSAGES = 2000;

export const MentionBackfillBody = z
  .object({
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_BACKFILL_MESSAGES)
      .optional()
      .openapi({
        description: `Messages this call reads at most (${DEFAULT_BACKFILL_MESSAGES} by default); call again while \`done\` is false.`,
      }),
    background: z.boolean().optional().openapi({
      description:
        "When this call leaves more to read, go on through the extraction queue, call after call, until done.",
    }),
    restart: z.boolean().optional().openapi({
      description:
        "Read every extracted message's mentions again from the first (after the tenant's mention extractor or thresholds changed); what exists is kept.",
    }),
  })
  .strict()
  .openapi("MentionBackfill");

const MentionBackfillReport = z.object({
  read: z.number().int().openapi({ description: "Messages whose mentions this call read." }),
  references_added: z
    .number()
    .int()
    .openapi({ description: "New references from a message to an entity (existing ones not counted)." }),
  entities_created: z.number().int(),
  mentioned_through: z.number().int().openapi({
    description: "The arrival number through which every extracted message's mentions were read.",
  }),
  pending_messages: z
    .number()
    .int()
    .openapi({ description: "Extracted messages whose mentions are still to be read." }),
  unresolved_names: z.number().int().openapi({
    description: "Names of weak mentions that refer to no entity yet, checked again on every call.",
  }),
  done: z.boolean().openapi({
    description: "Every extracted message read and every unresolved name checked against the registry.",
  }),
});

export const MentionBackfillResult = MentionBackfillReport.extend({
  queued: z
    .boolean()
    .openapi({ description: "The rest goes on through the queue (asked with `background`, and not done)." }),
}).openapi("MentionBackfillResult");

export type MentionBackfillOutput = z.infer<typeof MentionBackfillReport>;
