import type { ExtractionJobBody } from "./extraction/jobs";
import type { ProjectIndexRpc } from "./project-index/project-index-rpc";
import type { ThreadRpc } from "./thread/thread-rpc";

/** Bindings every deployment has. Per-tenant D1 bindings are looked up by name through the registry. */
export interface Env {
  THREADS: DurableObjectNamespace<ThreadRpc>;
  /** One object per (tenant, project): the vectors of the project's current facts (offline shape). */
  PROJECT_INDEX: DurableObjectNamespace<ProjectIndexRpc>;
  /** Extraction jobs, one per ingest that added messages. */
  EXTRACTION_QUEUE: Queue<ExtractionJobBody>;
  /** "local" only under `wrangler dev` and tests; anything else is a deployment. */
  TENURE_ENV: string;
  /** JSON tenant registry; see src/tenancy/registry.ts. */
  TENANTS: string;
  /** How many hours ahead of the server's clock an event's `ts` may be (default 24). */
  MAX_FUTURE_HOURS?: string;
  /** Request body limits, as decimal integers; src/http/body-limits.ts has the defaults. */
  MAX_BODY_BYTES?: string;
  MAX_JSON_DEPTH?: string;
}
