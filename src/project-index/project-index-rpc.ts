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
}
