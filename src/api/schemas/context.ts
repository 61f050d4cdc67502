import { z } from "@hono/zod-openapi";
import type { CompiledContext } from "../../domain/compiled-context";
import { REDACTION_KINDS } from "../../domain/redaction";
import { SCREEN_KINDS } from "../../domain/screening";
import {
  type CompileTrace as DomainCompileTrace,
  EVIDENCE_SOURCES,
  EXTRACTION_STATUSES,
  FACT_CANDIDATE_SOURCES,
  FACT_READS,
} from "../../domain/trace";
import type { SameType } from "../../domain/type-checks";
import { isoDateTime, roleList, shortText } from "./common";
import {
  AuthorityLevel,
  Classification,
  CompiledAs,
  ContradictionStatus,
  DetailLevel,
  ObjectKind,
  ObjectType,
  OmitReason,
  PriorityTier,
  TaskType,
} from "./vocabulary";

/** A context request, and the compiled context with its trace that answers it. */

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
          pending_entities: z.array(z.string()).optional().openapi({
            description:
              "Pending entities (awaiting review) the object names: a constraint naming one is compiled as guidance, not a rule, until its review is accepted.",
          }),
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
        .object({
          total: z.number().int(),
          admitted: z.number().int(),
          compiled: z.number().int(),
          facts: z
            .object({
              recent: z.number().int(),
              standing: z.number().int(),
              thread: z.number().int(),
              matched: z.number().int(),
              entity: z.number().int(),
              similar: z.number().int(),
              history: z.number().int(),
              truncated: z.array(z.enum(FACT_CANDIDATE_SOURCES)),
            })
            .optional()
            .openapi({
              description:
                "Where the project's candidate facts came from, read through D1's indexes rather than a copy of the " +
                "project: `recent` the newest versions, `standing` current constraints and rules by authority, " +
                "`thread` the current facts this thread wrote (its conversation's own state, however much else the " +
                "project holds), `matched` current facts the query's words match (FTS5, bm25), `entity` current facts that refer to a " +
                "registered entity the query names (see `entities`) or to one of its neighbours (see `neighbours`), `similar` current facts nearest the query in the " +
                "project's vector index, `history` earlier versions of the slots those found outside the recent " +
                "window and the versions any candidate refers to (supersedes, depends on) with their slots. Each " +
                "source is bounded (recent 200, or all of a project of up to 500 versions; standing 200, thread 200, " +
                "matched 25, entity 25 and 25 of its neighbours, similar 25, history 500 versions); " +
                "`truncated` names the sources whose bound left versions out, best-ranked kept.",
            }),
          truncated: z.boolean().optional().openapi({
            description:
              "True when any candidate source's bound left versions out (see `facts.truncated` and `layer_history`).",
          }),
          layer_history: z
            .object({ kept: z.number().int(), left_out: z.number().int() })
            .optional()
            .openapi({
              description:
                "Present when the working or environment layer holds more replaced versions than a compile reads " +
                "(500 per layer, the newest): `kept` replaced versions were compiled with the current entries, " +
                "`left_out` older ones were not, so a message restating one of those values is no longer recognised " +
                "as stating a replaced value.",
            }),
          entities: z
            .array(
              z.object({
                id: z.string(),
                name: z.string(),
                mention: z.string(),
                pending: z.boolean(),
              }),
            )
            .optional()
            .openapi({
              description:
                "The canonical entities the query names (the entity registry, `GET /entities`): each with its " +
                "canonical name and the words of the query that named it. Facts referring to an active one are " +
                "candidates (`facts.entity`); a pending one (awaiting review) is listed but brings no facts.",
            }),
          neighbours: z
            .array(z.string())
            .optional()
            .openapi({
              description:
                "Ids of the entities that share a fact with those the query names (at most 5): their current facts " +
                "(at most 50, counted in `facts.entity`) were candidates too.",
            }),
          entity_messages: z
            .array(z.object({ message_id: z.string(), entity_id: z.string() }))
            .optional()
            .openapi({
              description:
                "The thread's messages and tool output that refer to an active entity the query names, by any of " +
                "its names (the newest 10): retrieved as episodes ranked as close matches, each with the entity.",
            }),
        })
        .openapi({ description: "Candidate counts: gathered, past the gates, and compiled." }),
      redactions: z.partialRecord(z.enum(REDACTION_KINDS), z.number().int()).optional().openapi({
        description: "How many values of each kind were redacted; the values themselves never appear.",
      }),
      compile_ms: z
        .number()
        .min(0)
        .optional()
        .openapi({
          description:
            "Server-side wall time of the compile, in milliseconds: the thread's own storage (messages, episodes, items, " +
            "layers), the project's facts (from the object's memory, the project's fact replica, or D1; see `timings.facts_read`), " +
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
                "Waiting for the project's candidate facts after the thread's own reads. Zero I/O when the same search is " +
                "held at the project's current revision (`facts_read: held`); one call to the project's fact replica when " +
                "the rest of the search is held (`replica`); otherwise one D1 batch (two when matches lie outside the " +
                "newest versions). Started before those reads; this is the wait left over.",
            }),
          facts_read: z.enum(FACT_READS).openapi({
            description:
              "How the candidate facts were read. `held`: the answer of the same search, kept in the object's memory (the " +
              "last few searches), with no I/O, because no write to the project was announced since; every write, " +
              "through this thread or another, is announced to the readers registered for the project. `searched`: " +
              "D1's indexes asked, after an announced write, or at least every 30 s in case an announcement was lost. " +
              "`replica`: a new question, the rest of the search held at the current revision, answered by the " +
              "project's fact replica (its index object's copy of the project's facts, which follows D1 by revision), " +
              "and D1 asked for nothing.",
          }),
          thread_reads_ms: z
            .number()
            .min(0)
            .openapi({
              description:
                "Reading the thread's own SQLite (messages, episode retrieval, items, claims, layers, and the vector " +
                "search for facts and items, which runs once the facts have arrived): synchronous, so CPU time, except " +
                "embedding the query, which is I/O with the Workers AI embedder.",
            }),
          passes_ms: z.number().min(0).openapi({
            description:
              "The pure compiler passes: CPU time. Reads 0 on a deployed Worker, whose clock stands still then.",
          }),
          waited_ms: z
            .number()
            .min(0)
            .optional()
            .openapi({
              description:
                "Not part of compile_ms: how long the compile waited, before reading, for the write path's pass in " +
                "flight (extracting the caller's last turns, indexing, a first read of the project's facts), at most 2 s " +
                "and never for a backlog of more than one extraction slice.",
            }),
        })
        .optional()
        .openapi({
          description: "compile_ms split by phase; the rest is tokenizer loading and raising confirmations.",
        }),
      extraction: z
        .object({
          status: z.enum(EXTRACTION_STATUSES),
          pending_messages: z.number().int(),
        })
        .optional()
        .openapi({
          description:
            "Read-your-writes: whether messages past the extraction watermark were extracted before compiling.",
        }),
      extraction_pending: z.number().int().optional().openapi({
        description:
          "Messages not yet extracted when the compile read state: a backlog is compiled from what is extracted so far plus the raw messages, never waited on.",
      }),
      budget: z
        .object({ evidence: z.enum(EVIDENCE_SOURCES), state_share: z.number() })
        .optional()
        .openapi({
          description:
            "Budgets follow the question: `evidence` is `conversation` when the retrieved earlier turns hold " +
            "words of the query that no relevant stored object does (and more of them), and state items and " +
            "facts are then packed within `state_share` of what remains (0.3, or `facts_share` if lower), " +
            "so they never crowd out the turns that answer; `state` keeps `facts_share` for facts (1: no " +
            "joint bound).",
        }),
      held: z
        .object({
          fact_rows: z.number().int(),
          compiled_objects: z.number().int(),
          message_postings: z.number().int(),
        })
        .optional()
        .openapi({
          description:
            "What the thread's object holds in memory between compiles, after this one: `fact_rows` the candidate " +
            "fact versions of its last few searches, `compiled_objects` the normalised objects its compile cache " +
            "keeps, `message_postings` the (message, term count, length) entries of the full-text lists its " +
            "message search ranks from (16 bytes each). All are bounded whatever the project and the thread " +
            "hold; this is how an operator sees it.",
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

export type ContextInput = z.infer<typeof ContextBody>;
export type ContextOutput = z.infer<typeof ContextResult>;
export type ContextResponseOutput = z.infer<typeof ContextResponse>;
export type CompileTraceOutput = z.infer<typeof CompileTrace>;

true satisfies SameType<ContextOutput, CompiledContext>;
true satisfies SameType<CompileTraceOutput, DomainCompileTrace>;
