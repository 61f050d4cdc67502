import { z } from "@hono/zod-openapi";
import type { Identity as DomainIdentity } from "../../domain/identity";
import type { SameType } from "../../domain/type-checks";
import { ITEM_REFS_KEPT } from "../../items/item-refs";
import { isoDateTime, roleList, shortText, slugId } from "./common";
import { StoredFact } from "./facts";
import { Classification, Scope } from "./vocabulary";

/** Threads: their path parameters, creation, and the views of a thread's state and extraction. */

export const ThreadParams = z.object({
  tenant: z.string().openapi({ param: { name: "tenant", in: "path" }, example: "dev" }),
  thread: slugId().openapi({ param: { name: "thread", in: "path" }, example: "support-42" }),
});

export const TenantParams = ThreadParams.pick({ tenant: true });

export const Identity = z
  .object({
    user_id: shortText(200),
    user_name: shortText(200).optional(),
    authority: shortText(200).optional(),
    roles: roleList.optional(),
    department: shortText(200).optional(),
    organization: shortText(200).optional(),
    permissions: roleList.optional(),
  })
  .openapi("Identity");

export const Environment = z
  .object({
    now: isoDateTime.optional(),
    timezone: shortText(100).optional(),
    location: shortText(200).optional(),
  })
  .catchall(z.unknown())
  .openapi("Environment");

export const CreateThreadBody = z
  .object({
    project_id: slugId(),
    identity: Identity,
    environment: Environment.optional(),
  })
  .openapi("CreateThread");

export const ThreadView = z
  .object({
    tenant: z.string(),
    thread: z.string(),
    project_id: z.string(),
    identity: Identity,
    environment: Environment,
  })
  .openapi("Thread");

export const Watermark = z
  .object({
    last_message: z.object({ ts: z.string(), id: z.string() }).nullable(),
    extracted_through: z.object({ ts: z.string(), id: z.string() }).nullable(),
    pending_messages: z.number().int(),
  })
  .openapi("Watermark");

export const StateItemView = z
  .object({
    uid: z.string(),
    text: z.string(),
    status: z.string(),
    type_tag: z.enum(["decision", "constraint", "action", "question", "risk"]),
    topic_tags: z.array(z.string()),
    refs: z.array(z.string()).openapi({
      description: `Ids of the messages the item was read from: the first and the newest, ${ITEM_REFS_KEPT} at most (EXPAND returns these).`,
    }),
    ref_count: z.number().int().optional().openapi({
      description: "How many messages the item was read from, present once that is more than `refs` keeps.",
    }),
    confidence: z.enum(["low", "medium", "high"]),
    replaced_by: z.string().nullable(),
    supersession_evidence: z
      .object({ trigger: z.string(), ref_msg_id: z.string(), candidate_uid: z.string() })
      .nullable(),
    conflict: z.boolean(),
    pinned: z.boolean(),
    source: z.enum(["rules", "llm"]),
    created_at: z.string(),
    last_seen_at: z.string(),
    scope: Scope,
    scope_id: z.string().nullable(),
    classification: Classification,
    allow_roles: z.array(z.string()),
  })
  .openapi("StateItem");

export const ExtractResultView = z
  .object({
    id: z.string(),
    extractor: z.string(),
    started_at: z.string(),
    duration_ms: z.number(),
    messages: z.number().int(),
    through: z.object({ ts: z.string(), id: z.string() }).nullable(),
    items_extracted: z.number().int(),
    items_merged: z.number().int(),
    items_conflicted: z.number().int(),
    items_superseded: z.number().int(),
    items_dropped: z.number().int(),
    facts_extracted: z.number().int(),
    skipped_reason: z.string().nullable(),
  })
  .openapi("ExtractResult");

export const ExtractionLogView = z
  .object({
    runs: z.array(ExtractResultView),
    dead_jobs: z.array(
      z.object({ message_id: z.string(), attempts: z.number().int(), recorded_at: z.string() }),
    ),
    watermark: Watermark,
  })
  .openapi("ExtractionLog");

export const ExpandedItemView = z
  .object({
    item: StateItemView,
    messages: z.array(
      z.object({
        id: z.string(),
        ts: z.string(),
        role: z.string(),
        speaker: z.string().nullable(),
        content: z.string(),
      }),
    ),
  })
  .openapi("ExpandedItem");

const StoredMessageView = z.object({
  id: z.string(),
  ts: z.string(),
  role: z.string(),
  speaker: z.string().nullable(),
  content: z.string(),
});

export const MessageParams = ThreadParams.extend({
  message: slugId().openapi({ param: { name: "message", in: "path" }, example: "m-17" }),
});

export const MessagePartQuery = z.object({
  part: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .openapi({
      param: { name: "part", in: "query" },
      description:
        "A passage, numbered from 1 as a context's `(excerpt of message <id>: part N of M)` numbers it.",
      example: 3,
    }),
});

export const MessageViewSchema = z
  .object({
    message: StoredMessageView.openapi({
      description: "The stored message, secrets and PII redacted as a compile would for the thread's user.",
    }),
    parts: z
      .number()
      .int()
      .openapi({ description: "How many passages the message is indexed by (1 when short)." }),
    part: z
      .object({ index: z.number().int(), text: z.string() })
      .nullable()
      .openapi({ description: "The passage asked for with `part`; null without it." }),
  })
  .openapi("Message");

export const ThreadState = z
  .object({
    thread: ThreadView,
    facts: z.array(StoredFact).openapi({
      description:
        "The project's current facts this thread's user may see, the newest 1,000 at most, ordered by key (a " +
        "project can hold millions: `GET /facts?project_id=` pages through them all).",
    }),
    facts_truncated: z
      .boolean()
      .openapi({ description: "True when current facts past the newest 1,000 were left out of `facts`." }),
    working_set: z.array(
      z.object({ key: z.string(), value: z.unknown(), ts: z.string(), expires_at: z.string().nullable() }),
    ),
    environment_facts: z.array(z.object({ key: z.string(), value: z.unknown(), ts: z.string() })),
    message_count: z.number().int(),
    unindexed_messages: z
      .number()
      .int()
      .openapi({
        description:
          "Messages the thread's message index has not embedded yet. They are embedded a batch at a time " +
          "between requests, after extraction, while the thread is being read (compiled in the last 10 " +
          "minutes); otherwise they wait for its next compile. Until then a compile finds them by their " +
          "words (full text covers every message), not by meaning.",
      }),
    watermark: Watermark,
    items: z
      .array(StateItemView)
      .openapi({ description: "Active state items extracted from the conversation." }),
    rendered_state: z
      .string()
      .openapi({ description: "The active items in seed 002's compact one-line format." }),
  })
  .openapi("ThreadState");

export type CreateThreadInput = z.infer<typeof CreateThreadBody>;
export type IdentityInput = z.infer<typeof Identity>;
export type WatermarkView = z.infer<typeof Watermark>;

true satisfies SameType<IdentityInput, DomainIdentity>;
