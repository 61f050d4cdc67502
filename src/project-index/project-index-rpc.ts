import type { ReplicaRows } from "./fact-replica";

/** A fact's vector as the project index keeps it: whose own it is ("" for the whole project). */
export interface IndexedFact {
  id: string;
  values: number[];
  /** The owning user of a private fact, "" for a fact of the whole project. */
  user: string;
}

/** A fact near a query vector, with its cosine. */
export interface NearFact {
  id: string;
  score: number;
}

/** The query-dependent part of a project's fact search, as a compile asks the project index for it. */
export interface FactSearchRequest {
  /** The project revision the reader holds the rest of its candidates at: the answer is at least as new. */
  revision: number;
  userId: string;
  terms: string[];
  /** The query's vector in the embedder's namespace, when it has one: the nearest facts are found too. */
  vector: { namespace: string; values: number[] } | null;
  nearLimit: number;
  /** Facts the reader holds already (its newest versions): not read again as nearest. */
  heldIds: string[];
  /**
   * Every version the reader holds as of `knownAt` (its newest versions, standing rules and last
   * searches): the answer names those without their rows unless they changed after it. `knownAt` is
   * `revision` but right after a write the reader was told of, when it holds them as of an earlier one.
   */
  knownIds: string[];
  knownAt: number;
  /** Slots and versions whose history the reader wants besides what the answer finds. */
  outside: { keys: readonly string[]; ids: readonly string[] };
  /** Registered entities the question names (resolved by the reader): their facts are read too. */
  entityIds: string[];
}

/**
 * The nearest facts, and the replica's rows (fact-replica.ts) unless it is still behind the reader's
 * revision, in which case the reader searches D1.
 */
export interface FactSearchAnswer {
  near: NearFact[];
  rows?: ReplicaRows;
}

/**
 * The project index's RPC surface (src/project-index/project-index-object.ts), as thread objects call
 * it. Every call names the tenant and project the object was created for; a call naming others is
 * refused. `namespace` is the embedder's name: vectors of two embedders are never compared.
 */
export interface ProjectIndexRpc extends Rpc.DurableObjectBranded {
  upsert(tenant: string, projectId: string, namespace: string, facts: IndexedFact[]): Promise<void>;
  remove(tenant: string, projectId: string, namespace: string, ids: string[]): Promise<void>;
  nearest(
    tenant: string,
    projectId: string,
    namespace: string,
    vector: number[],
    userId: string,
    limit: number,
  ): Promise<NearFact[]>;
  /** A write reached `revision` in D1: the fact replica reads what changed. */
  advance(tenant: string, projectId: string, revision: number): Promise<void>;
  search(tenant: string, projectId: string, request: FactSearchRequest): Promise<FactSearchAnswer>;
}
