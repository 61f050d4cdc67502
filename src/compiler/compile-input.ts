import type { EntityThresholds, RegistryEntity } from "../domain/entities";
import type { FactVersion } from "../domain/fact-version";
import type { Identity } from "../domain/identity";
import type { TaskTypeName } from "../domain/tasks";
import type { PendingReference } from "../domain/trace";
import type { AuthorityTier } from "../facts/authority";
import type { CompileCache } from "./cache/compile-cache";
import type { OutputFormat } from "./passes/emit-format";
import type { ToolDefinition } from "./passes/zones";
import type { EpisodeRecord, LayerEntry, MessageRecord, StatedClaims, StateItemRecord } from "./types";

/**
 * Everything one compile reads: the thread's stored state, loaded by the caller, and the query. Apart
 * from the records (./types.ts), so that the records' many readers do not depend on CompileCache.
 */
export interface CompileInput {
  query: string;
  budgetTokens: number;
  factsShare: number;
  now: string;
  threadId: string;
  taskId?: string;
  requestRoles?: string[];
  taskType?: TaskTypeName;
  tenantId: string;
  projectId: string;
  identity: Identity;
  environment: Record<string, unknown>;
  ladder: AuthorityTier[];
  facts: FactVersion[];
  /**
   * The project's entity registry, when the reader holds it whole (src/entities/query-entities.ts), and
   * the tenant's thresholds: what attributed instructions are about is read as canonical ids with it.
   */
  registry?: { entities: readonly RegistryEntity[]; thresholds?: EntityThresholds };
  /** Facts that refer to a pending entity (seed 001: never a hard constraint until it is reviewed). */
  pendingEntities?: readonly PendingReference[];
  working: LayerEntry[];
  environmentFacts: LayerEntry[];
  /** Extracted state items, superseded ones included so the trace can name them. */
  items: StateItemRecord[];
  /** What the tail messages and the source messages of items stated, by message id. */
  statedClaims: Map<string, StatedClaims>;
  /** Most recent messages, oldest first. */
  messages: MessageRecord[];
  /** Earlier messages retrieved by relevance to the query, in any order; tail messages may recur. */
  episodes?: EpisodeRecord[];
  /**
   * Facts and state items the thread's vector index found nearest the query, with their cosine, by
   * object id (fact id, item uid); fused with BM25 in pass 5. Absent: lexical relevance alone.
   */
  similar?: ReadonlyMap<string, number>;
  countTokens: (text: string) => number;
  /**
   * What earlier compiles of this thread worked out (normalised objects, line counts, the temporal
   * settlement), owned by the thread's Durable Object. Only a memo: the envelope is the same without it.
   */
  cache?: CompileCache;
  /** Output shape and the caller's static zones (developer rules, tool definitions). */
  format?: OutputFormat;
  system?: string;
  tools?: ToolDefinition[];
}
