import { z } from "@hono/zod-openapi";
import { AUTHORITY_LEVELS, type AuthorityLevel as AuthorityLevelName } from "../../domain/authority";
import { CLASSIFICATIONS } from "../../domain/classification";
import { COMPILED_AS, DETAIL_LEVELS, PRIORITY_TIERS } from "../../domain/compilation";
import { CONTRADICTION_STATUSES } from "../../domain/contradiction";
import { LAYERS } from "../../domain/layers";
import { type DecayRule as DomainDecayRule, RETIREMENT_RULES } from "../../domain/lifecycle";
import { OBJECT_KINDS, OBJECT_TYPES } from "../../domain/objects";
import { OMIT_REASONS } from "../../domain/omissions";
import { SCOPES } from "../../domain/scopes";
import { SOURCE_TYPES } from "../../domain/sources";
import { TASK_TYPES } from "../../domain/tasks";
import type { SameType } from "../../domain/type-checks";

/** The domain's vocabularies (src/domain) as zod schemas: each enum is built from the domain's own list. */

export const SourceType = z.enum(SOURCE_TYPES);
export const Scope = z.enum(SCOPES);
export const Classification = z.enum(CLASSIFICATIONS);
export const Layer = z.enum(LAYERS);
export const ObjectType = z.enum(OBJECT_TYPES).openapi("ObjectType");
export const ObjectKind = z.enum(OBJECT_KINDS);
export const TaskType = z.enum(TASK_TYPES).openapi("TaskType");

/**
 * 0 platform rules, 1 developer rules, 2 user constraints, 3 inferred memory, 4 retrieved data and tool
 * payloads. An integer in that range is exactly the domain's AuthorityLevel, which zod would type as any
 * number; the cast says so without changing what is validated or published.
 */
export const AuthorityLevel = z
  .number()
  .int()
  .min(Math.min(...AUTHORITY_LEVELS))
  .max(Math.max(...AUTHORITY_LEVELS))
  .openapi("AuthorityLevel") as z.ZodType<AuthorityLevelName>;

export const ContradictionStatus = z.enum(CONTRADICTION_STATUSES).openapi("ContradictionStatus");
export const RetirementRule = z.enum(RETIREMENT_RULES).openapi("RetirementRule");
export const DecayRule = z
  .object({
    half_life_days: z.number().positive().max(36_500),
    minimum_threshold: z.number().min(0).max(1).default(0),
  })
  .openapi("DecayRule");
true satisfies SameType<z.infer<typeof DecayRule>, DomainDecayRule>;

export const PriorityTier = z.enum(PRIORITY_TIERS).openapi("PriorityTier");
/** Seed 001's fact-to-instruction ladder, level 0 to 5. */
export const CompiledAs = z.enum(COMPILED_AS).openapi("CompiledAs");
export const DetailLevel = z.enum(DETAIL_LEVELS).openapi("DetailLevel");
export const OmitReason = z.enum(OMIT_REASONS);
