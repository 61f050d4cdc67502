/** Published request and response shapes, by area. The OpenAPI document is generated from these. */

// re-exported for src/thread and the hygiene/temporal files until they import src/domain
export type { CompiledAsName, DetailLevelName, PriorityTierName } from "../../domain/compilation";
export type { ContradictionStatusName } from "../../domain/contradiction";
export type { FactContext } from "../../domain/facts";
export type { RetirementRuleName } from "../../domain/lifecycle";
export type { ObjectKindName, ObjectTypeName } from "../../domain/objects";
export type { OmitReasonName } from "../../domain/omissions";
export type { TaskTypeName } from "../../domain/tasks";
export * from "./context";
export * from "./events";
export * from "./facts";
export * from "./problems";
export * from "./threads";
export * from "./traces";
export * from "./vocabulary";
