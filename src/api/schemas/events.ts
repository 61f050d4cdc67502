import { z } from "@hono/zod-openapi";
import type { FactContext as DomainFactContext, FactEvent as DomainFactEvent } from "../../domain/facts";
import type { SameType } from "../../domain/type-checks";
import { isoDateTime, MAX_MESSAGE_CHARS, payloadText, roleList, shortText, slugId } from "./common";
import { Watermark } from "./threads";
import {
  Classification,
  DecayRule,
  Layer,
  ObjectType,
  RetirementRule,
  Scope,
  SourceType,
  TaskType,
} from "./vocabulary";

/** Events a client posts to a thread (messages and facts), and what ingesting them did. */

const eventId = slugId();

export const MessageEvent = z
  .object({
    type: z.literal("message"),
    id: eventId.optional(),
    role: z.enum(["user", "assistant", "system", "tool"]),
    speaker: shortText(200).optional(),
    content: payloadText(MAX_MESSAGE_CHARS),
    ts: isoDateTime.optional(),
  })
  .openapi("MessageEvent");

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
          outcome: z
            .enum(["created", "superseded_previous", "disputed", "duplicate", "upserted", "history"])
            .openapi({
              description:
                "`history`: older (by valid time) than the slot's current version, so filed in its chain, never current.",
            }),
          supersedes: z.string().nullable(),
          reason: z.string().nullable(),
        }),
      )
      .openapi({ description: "What happened to each fact event, in applied order." }),
  })
  .openapi("IngestResult");

export type EventInput = z.infer<typeof Event>;
export type FactEventInput = z.infer<typeof FactEvent>;
export type MessageEventInput = z.infer<typeof MessageEvent>;
export type IngestOutput = z.infer<typeof IngestResult>;

true satisfies SameType<z.infer<typeof FactContextFields>, DomainFactContext>;
true satisfies SameType<FactEventInput, DomainFactEvent>;
