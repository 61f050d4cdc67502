import { z } from "@hono/zod-openapi";
import { SCREEN_KINDS } from "../screening/screen-turn";

/** Published request and response shapes. The OpenAPI document is generated from these. */

const isoDateTime = z.iso
  .datetime({ offset: true, local: true })
  .openapi({ example: "2025-11-27T16:00:00Z" });
const shortText = (max: number) => z.string().trim().min(1).max(max);
const roleList = z.array(shortText(100)).max(50);

export const ThreadParams = z.object({
  tenant: z.string().openapi({ param: { name: "tenant", in: "path" }, example: "dev" }),
  thread: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,128}$/, "must be 1-128 characters of A-Z a-z 0-9 . _ : -")
    .openapi({ param: { name: "thread", in: "path" }, example: "support-42" }),
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
    project_id: z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,128}$/, "must be 1-128 characters of A-Z a-z 0-9 . _ : -"),
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

const eventId = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,128}$/, "must be 1-128 characters of A-Z a-z 0-9 . _ : -");

export const MessageEvent = z
  .object({
    type: z.literal("message"),
    id: eventId.optional(),
    role: z.enum(["user", "assistant", "system", "tool"]),
    speaker: shortText(200).optional(),
    content: z.string().min(1).max(100_000),
    ts: isoDateTime.optional(),
  })
  .openapi("MessageEvent");

export const SourceType = z.enum(["user", "system", "tool", "external", "policy", "conversation"]);
export const Scope = z.enum(["global", "task", "hypothetical", "draft", "session"]);
export const Classification = z.enum(["public", "restricted", "confidential", "highly_restricted"]);
export const Layer = z.enum(["persistent", "working", "environment"]);

/** Seed 001's bounded vocabularies for Context Objects, the compiler's unit. */
export const ObjectType = z
  .enum([
    "preference",
    "identity_fact",
    "project_decision",
    "retrieved_passage",
    "policy_rule",
    "tool_schema",
    "inferred_belief",
    "actionable_constraint",
    // Additions to seed 001's list, for sources the seed does not name: raw turns and monitored signals.
    "conversation_turn",
    "environment_signal",
  ])
  .openapi("ObjectType");
export const TaskType = z
  .enum(["code_generation", "analytical_reporting", "data_extraction", "system_orchestration"])
  .openapi("TaskType");
/** 0 platform rules, 1 developer rules, 2 user constraints, 3 inferred memory, 4 retrieved data and tool payloads. */
export const AuthorityLevel = z.number().int().min(0).max(4).openapi("AuthorityLevel");
export const ContradictionStatus = z
  .enum(["clean", "disputed", "overridden", "quarantined"])
  .openapi("ContradictionStatus");
export const RetirementRule = z
  .enum(["archive", "hard_delete", "demote_to_archival", "trigger_user_confirmation"])
  .openapi("RetirementRule");
export const DecayRule = z
  .object({
    half_life_days: z.number().positive().max(36_500),
    minimum_threshold: z.number().min(0).max(1).default(0),
  })
  .openapi("DecayRule");
export const PriorityTier = z
  .enum(["critical", "important", "useful", "minimal", "irrelevant"])
  .openapi("PriorityTier");
/** Seed 001's fact-to-instruction ladder, level 0 to 5. */
export const CompiledAs = z
  .enum([
    "raw_observation",
    "normalized_fact",
    "scoped_memory",
    "task_context",
    "behavioral_guidance",
    "hard_constraint",
  ])
  .openapi("CompiledAs");
export const DetailLevel = z.enum(["full", "summary", "micro"]).openapi("DetailLevel");

/** Context Object fields a client may state with a fact; whatever is left out is inferred. */
export const FactContextFields = z
  .object({
    object_type: ObjectType.optional(),
    why_it_matters: shortText(2000).optional(),
    applicable_task_types: z.array(TaskType).max(4).optional(),
    behavioral_implication: shortText(2000).optional(),
    confidence_score: z.number().min(0).max(1).optional(),
    source_authority: z.number().min(0).max(1).optional(),
    canonical_entity_ids: z.array(shortText(200)).max(20).optional(),
    aliases: z.array(shortText(200)).max(20).optional(),
    decay_rule: DecayRule.optional(),
    retirement_rule: RetirementRule.optional(),
  })
  .strict()
  .openapi("FactContextFields", {
    description:
      "Optional Context Object metadata (seed 001). why_it_matters with applicable_task_types makes a preference conditional: it activates only for those task types and queries that match why_it_matters.",
  });

export const FactValue = z.union([
  z.string().max(100_000),
  z.number(),
  z.boolean(),
  z.record(z.string(), z.unknown()),
]);

export const FactEvent = z
  .object({
    type: z.literal("fact"),
    id: eventId.optional(),
    key: z.string().trim().min(1).max(200),
    value: FactValue,
    layer: Layer.optional(),
    ts: isoDateTime.optional(),
    source: z
      .object({
        type: SourceType,
        authority: shortText(200).optional(),
        identity: shortText(200).optional(),
      })
      .optional(),
    scope: Scope.optional(),
    scope_id: shortText(200).optional(),
    supersedes: shortText(200).optional(),
    depends_on: z.array(shortText(200)).max(100).optional(),
    is_constraint: z.boolean().optional(),
    constraint_type: shortText(100).optional(),
    valid_from: isoDateTime.optional(),
    valid_until: isoDateTime.nullable().optional(),
    classification: Classification.optional(),
    allow_roles: roleList.optional(),
    deny_roles: roleList.optional(),
    context: FactContextFields.optional(),
  })
  .refine((f) => !f.valid_from || !f.valid_until || Date.parse(f.valid_from) < Date.parse(f.valid_until), {
    message: "valid_until must be after valid_from",
    path: ["valid_until"],
  })
  .openapi("FactEvent");

export const Event = z.discriminatedUnion("type", [MessageEvent, FactEvent]).openapi("Event");

export const IngestBody = z.object({ events: z.array(Event).min(1).max(500) }).openapi("IngestEvents");

export const Watermark = z
  .object({
    last_message: z.object({ ts: z.string(), id: z.string() }).nullable(),
    extracted_through: z.object({ ts: z.string(), id: z.string() }).nullable(),
    pending_messages: z.number().int(),
  })
  .openapi("Watermark");

export const IngestResult = z
  .object({
    accepted: z.number().int(),
    duplicates: z.number().int(),
    watermark: Watermark,
    facts: z
      .array(
        z.object({
          id: z.string(),
          key: z.string(),
          outcome: z.enum(["created", "superseded_previous", "disputed", "duplicate", "upserted"]),
          supersedes: z.string().nullable(),
          reason: z.string().nullable(),
        }),
      )
      .openapi({ description: "What happened to each fact event, in applied order." }),
  })
  .openapi("IngestResult");

export const ToolDefinition = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be 1-64 characters of A-Z a-z 0-9 _ . -"),
    description: z.string().trim().min(1).max(4_000),
    input_schema: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("ToolDefinition");

export const ContextBody = z
  .object({
    query: z.string().min(1).max(10_000),
    budget_tokens: z.number().int().min(64).max(200_000).default(8000),
    now: isoDateTime.optional(),
    roles: roleList.optional(),
    task_type: TaskType.optional().openapi({
      description: "Active task type; facts whose applicable_task_types exclude it do not activate.",
    }),
    task_id: shortText(200).optional().openapi({ description: "Active task; task-scoped facts need it." }),
    facts_share: z.number().gt(0).max(1).default(0.7),
    format: z
      .enum(["text", "openai", "anthropic"])
      .default("text")
      .openapi({
        description:
          "Output shape. `text`: `context` only. `openai`: also `messages`, the static zones (rules, policy, " +
          "tools) as the first system message and the per-request zones as a second system message appended " +
          "after it. `anthropic`: also `anthropic.system` (one text block per static zone, the last carrying " +
          '`cache_control: {type: "ephemeral"}`) and `anthropic.messages` (the per-request zones as a user turn).',
      }),
    system: z.string().min(1).max(20_000).optional().openapi({
      description: "Developer rules, placed first (zone 1) so they form part of the cached prefix.",
    }),
    tools: z
      .array(ToolDefinition)
      .max(128)
      .optional()
      .openapi({ description: "Tool definitions for zone 3, rendered in the given order." }),
    trace_detail: z
      .enum(["full", "summary"])
      .default("full")
      .openapi({
        description:
          "`full`: the response's trace lists every omitted candidate with its reason. `summary`: it gives " +
          "`omitted_by_reason` counts instead, which keeps the response small on a large thread (at 10,000 " +
          "objects the omitted list is most of the response). The stored trace, `GET /traces/{trace_id}`, " +
          "always lists every omitted candidate.",
      }),
  })
  .openapi("ContextRequest", {
    description:
      "Secrets (api_key, password, private_key) in compiled text are replaced by `[REDACTED:<kind>]` unless " +
      'identity.permissions include "secrets:read"; PII (ssn, ni_number, card_number) unless they include ' +
      '"pii:read". When `roles` is given, a clearance must also be listed there: request roles narrow what ' +
      "the identity holds and never add to it. Authority rank grants no clearance. Tool messages and facts " +
      "whose source is a tool or external system are rendered inside <untrusted_data> blocks as data.",
  });

export const OmitReason = z.enum([
  "superseded",
  "out_of_scope",
  "not_permitted",
  "over_budget",
  "irrelevant",
  "expired",
  "disputed",
  "overridden",
  "quarantined",
  "duplicate",
]);

export const ObjectKind = z.enum(["identity", "environment", "fact", "state_item", "working", "message"]);

export const ContextResult = z
  .object({
    context: z.string(),
    tokens: z.number().int(),
    budget_tokens: z.number().int(),
    trace_id: z.string(),
    sections: z.array(z.object({ name: z.string(), tokens: z.number().int(), items: z.number().int() })),
    messages: z
      .array(z.object({ role: z.enum(["system", "user"]), content: z.string() }))
      .optional()
      .openapi({
        description: "format=openai: static system message first, per-request system message after.",
      }),
    anthropic: z
      .object({
        system: z.array(
          z.object({
            type: z.literal("text"),
            text: z.string(),
            cache_control: z.object({ type: z.literal("ephemeral") }).optional(),
          }),
        ),
        messages: z.array(
          z.object({
            role: z.literal("user"),
            content: z.array(z.object({ type: z.literal("text"), text: z.string() })),
          }),
        ),
      })
      .optional()
      .openapi({
        description: "format=anthropic: pass `system` and prepend `messages` to the conversation.",
      }),
    cache: z
      .object({
        prefix_hash: z.string().openapi({ description: "sha256 (hex) of the static prefix (zones 1-3)." }),
        static_prefix_tokens: z.number().int().optional(),
        dynamic_tokens: z.number().int().optional(),
      })
      .optional()
      .openapi({ description: "An unchanged prefix_hash means the provider's prompt cache can be reused." }),
    trace: z.object({
      compiled: z.array(
        z.object({
          object_id: z.string(),
          kind: ObjectKind,
          section: z.string(),
          object_type: ObjectType,
          authority_level: AuthorityLevel,
          source_authority: z.number(),
          confidence_score: z.number(),
          security_classification: Classification,
          contradiction_status: ContradictionStatus,
          priority_tier: PriorityTier,
          compiled_as: CompiledAs,
          detail: DetailLevel,
          tokens: z.number().int(),
          refs: z.array(z.string()).optional(),
        }),
      ),
      omitted: z.array(
        z.object({
          object_id: z.string(),
          kind: ObjectKind,
          reason: OmitReason,
          priority_tier: PriorityTier.optional(),
          detail: z.string().optional(),
        }),
      ),
      quarantined: z.array(
        z.object({
          object_id: z.string(),
          kind: ObjectKind,
          reason: z.literal("conflicting_claim_unresolved"),
          contradiction_status: ContradictionStatus,
          slot: z.string(),
          conflicts_with: z.array(z.string()),
          detail: z.string(),
        }),
      ),
      screened: z
        .array(
          z.object({
            object_id: z.string(),
            kind: z.literal("message"),
            screen: z.enum(SCREEN_KINDS),
            detail: z.string(),
          }),
        )
        .optional()
        .openapi({
          description:
            "User turns held back by screening (instruction override, a claimed identity or organisation " +
            "other than the caller's, a request for another organisation's data, or a reference to a " +
            "conversation the thread has no record of). Each is compiled only as a `[withheld: …]` notice.",
        }),
      candidates: z
        .object({ total: z.number().int(), admitted: z.number().int(), compiled: z.number().int() })
        .openapi({ description: "Candidate counts: gathered, past the gates, and compiled." }),
      redactions: z
        .partialRecord(
          z.enum(["api_key", "password", "private_key", "ssn", "ni_number", "card_number"]),
          z.number().int(),
        )
        .optional()
        .openapi({
          description: "How many values of each kind were redacted; the values themselves never appear.",
        }),
      compile_ms: z
        .number()
        .min(0)
        .optional()
        .openapi({
          description:
            "Server-side wall time of the compile, in milliseconds: the thread's own storage (messages, episodes, items, " +
            "layers), the project's facts (from the object's memory, or a D1 query when they changed; see `timings.facts_read`), " +
            "then the pure passes; split in `timings`. Storing the trace comes after and is not counted. Deployed Workers " +
            "advance clocks only across I/O (a Spectre mitigation), so there this counts a D1 wait and not the CPU after it; " +
            "under wrangler dev and tests the clock runs freely but ticks in whole milliseconds, and counts time spent " +
            "waiting for a core.",
        }),
      timings: z
        .object({
          facts_ms: z
            .number()
            .min(0)
            .openapi({
              description:
                "Waiting for the project's facts after the thread's own reads. Zero I/O when the object's copy is current " +
                "(`facts_read: held`); otherwise one D1 query, started before those reads, and this is the wait left over.",
            }),
          facts_read: z.enum(["held", "changes", "full"]).openapi({
            description:
              "How the facts were read. `held`: the object's copy, with no I/O, because every write to the project since " +
              "was announced to it and it had seen them all (a write through this thread brings the copy up to date in " +
              "its own D1 batch). `changes`: a D1 query for the rows changed since the copy, " +
              "after an announced write, or at least every 30 s in case an announcement was lost. `full`: the first " +
              "load after the object started.",
          }),
          thread_reads_ms: z
            .number()
            .min(0)
            .openapi({
              description:
                "Reading the thread's own SQLite (messages, episode retrieval, items, claims, layers, and the vector " +
                "search for facts and items, which runs once the facts have arrived): synchronous, so CPU time, except " +
                "embedding the query and facts not yet indexed, which is I/O with the Workers AI embedder.",
            }),
          passes_ms: z.number().min(0).openapi({
            description:
              "The pure compiler passes: CPU time. Reads 0 on a deployed Worker, whose clock stands still then.",
          }),
        })
        .optional()
        .openapi({
          description: "compile_ms split by phase; the rest is tokenizer loading and raising confirmations.",
        }),
      extraction: z
        .object({
          status: z.enum(["current", "partial", "failed"]),
          pending_messages: z.number().int(),
        })
        .optional()
        .openapi({
          description:
            "Read-your-writes: whether messages past the extraction watermark were extracted before compiling.",
        }),
    }),
  })
  .openapi("ContextResult");

/** The compile trace as returned with the context; TraceView carries the same shape. */
export const CompileTrace = ContextResult.shape.trace;

/** The context response: the compiled result, its trace's omitted list optional (`trace_detail`). */
export const ContextResponse = ContextResult.extend({
  trace: CompileTrace.extend({
    omitted: CompileTrace.shape.omitted.optional().openapi({
      description:
        "Every candidate left out, with the reason. Absent when the request asked for `trace_detail: " +
        "summary`, which gives `omitted_by_reason` instead; the stored trace always has it.",
    }),
    omitted_by_reason: z.partialRecord(OmitReason, z.number().int()).optional().openapi({
      description: "With `trace_detail: summary`: how many candidates were left out for each reason.",
    }),
  }),
}).openapi("ContextResponse");

export const TraceParams = TenantParams.extend({
  trace_id: z
    .string()
    .regex(/^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{26}$/, "must be a 26-character ULID, as returned in `trace_id`")
    .openapi({ param: { name: "trace_id", in: "path" }, example: "01JD3K4M5N6P7Q8R9S0T1V2W3X" }),
});

export const TraceView = z
  .object({
    trace_id: z.string(),
    tenant: z.string(),
    project_id: z.string(),
    thread: z.string(),
    created_at: z.string(),
    query_sha256: z.string().openapi({
      description:
        "SHA-256 (hex) of the query. The text is not stored: the trace names objects, not their content, " +
        "and an auditor holding a query can check it against this.",
    }),
    query_chars: z.number().int(),
    budget_tokens: z.number().int(),
    tokens: z.number().int(),
    compile_ms: z.number(),
    candidates: z.object({
      considered: z.number().int(),
      compiled: z.number().int(),
      omitted: z.number().int(),
      quarantined: z.number().int(),
    }),
    trace: CompileTrace,
  })
  .openapi("TraceView");

export const StoredFact = z
  .object({
    id: z.string(),
    key: z.string(),
    value: z.unknown(),
    project_id: z.string(),
    thread_id: z.string(),
    user_id: z.string().nullable(),
    memory_type: z.enum(["user", "capability", "organizational"]),
    source: z.object({ type: z.string(), authority: z.string().nullable(), identity: z.string().nullable() }),
    authority_rank: z.number().int(),
    scope: Scope,
    scope_id: z.string().nullable(),
    is_valid: z.boolean(),
    supersedes: z.string().nullable(),
    superseded_by: z.string().nullable(),
    contradiction_status: z.enum(["clean", "disputed", "overridden", "quarantined"]),
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

export const StateItemView = z
  .object({
    uid: z.string(),
    text: z.string(),
    status: z.string(),
    type_tag: z.enum(["decision", "constraint", "action", "question", "risk"]),
    topic_tags: z.array(z.string()),
    refs: z.array(z.string()),
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

export const ThreadState = z
  .object({
    thread: ThreadView,
    facts: z.array(StoredFact),
    working_set: z.array(
      z.object({ key: z.string(), value: z.unknown(), ts: z.string(), expires_at: z.string().nullable() }),
    ),
    environment_facts: z.array(z.object({ key: z.string(), value: z.unknown(), ts: z.string() })),
    message_count: z.number().int(),
    watermark: Watermark,
    items: z
      .array(StateItemView)
      .openapi({ description: "Active state items extracted from the conversation." }),
    rendered_state: z
      .string()
      .openapi({ description: "The active items in seed 002's compact one-line format." }),
  })
  .openapi("ThreadState");

export const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .openapi("Problem");

export type CreateThreadInput = z.infer<typeof CreateThreadBody>;
export type IdentityInput = z.infer<typeof Identity>;
export type EventInput = z.infer<typeof Event>;
export type FactEventInput = z.infer<typeof FactEvent>;
export type MessageEventInput = z.infer<typeof MessageEvent>;
export type ContextInput = z.infer<typeof ContextBody>;
export type ContextOutput = z.infer<typeof ContextResult>;
export type ContextResponseOutput = z.infer<typeof ContextResponse>;
export type StoredFactView = z.infer<typeof StoredFact>;
export type WatermarkView = z.infer<typeof Watermark>;
export type IngestOutput = z.infer<typeof IngestResult>;
export type OmitReasonName = z.infer<typeof OmitReason>;
export type ObjectKindName = z.infer<typeof ObjectKind>;
export type ObjectTypeName = z.infer<typeof ObjectType>;
export type TaskTypeName = z.infer<typeof TaskType>;
export type ContradictionStatusName = z.infer<typeof ContradictionStatus>;
export type PriorityTierName = z.infer<typeof PriorityTier>;
export type CompiledAsName = z.infer<typeof CompiledAs>;
export type DetailLevelName = z.infer<typeof DetailLevel>;
export type RetirementRuleName = z.infer<typeof RetirementRule>;
export type FactContext = z.infer<typeof FactContextFields>;
export type CompileTraceOutput = z.infer<typeof CompileTrace>;
export type TraceViewOutput = z.infer<typeof TraceView>;
