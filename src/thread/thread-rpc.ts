import type {
  ContextInput,
  ContextResponseOutput,
  CreateThreadInput,
  EventInput,
  IngestOutput,
  StoredFactView,
  WatermarkView,
} from "../api/schemas";
import type { MentionBackfillOutput } from "../api/schemas/entities";
import type { ExtractionLimits } from "../extraction/run-extraction";
import type { ExtractResult } from "../extraction/run-result";
import type { StateItem } from "../items/types";
import { type FullStore, storageFullDetail } from "../tenancy/storage-full";
import type { ThreadView } from "./thread-record";

/** A call's result, or the problem the route turns into its HTTP status. */
export type Outcome<T> =
  | { ok: true; value: T }
  | { ok: false; status: 404 | 409 | 503 | 507; title: string; detail: string };

export const notFound = (thread: string) =>
  ({
    ok: false,
    status: 404,
    title: "Thread not found",
    detail: `Create thread '${thread}' with PUT first.`,
  }) as const;

export const unknownTenant = (tenant: string) =>
  ({ ok: false, status: 404, title: "Unknown tenant", detail: tenant }) as const;

/** A batch whose facts lost the race for their slots every time they were re-planned. */
export const CONTENDED = {
  ok: false,
  status: 409,
  title: "Concurrent writes",
  detail:
    "Other writers kept replacing the facts this batch writes; nothing of it was stored. Send it again.",
} as const;

/** A write that did not fit its store (src/tenancy/storage-full.ts); the detail says what it stored. */
export const storageFullOutcome = (store: FullStore, factsStored = false) =>
  ({
    ok: false,
    status: 507,
    title: "Insufficient storage",
    detail: storageFullDetail(store, factsStored),
  }) as const;

export interface ExtractionLog {
  runs: ExtractResult[];
  dead_jobs: { message_id: string; attempts: number; recorded_at: string }[];
  watermark: WatermarkView;
}

export interface ExpandedItem {
  item: StateItem;
  messages: { id: string; ts: string; role: string; speaker: string | null; content: string }[];
}

/** One message of the thread, or one passage of it (EXCERPT pointers name their part). */
export interface MessageView {
  message: { id: string; ts: string; role: string; speaker: string | null; content: string };
  /** How many passages the message is indexed by (1 for a message of LONG_MESSAGE_CHARS or fewer). */
  parts: number;
  /** The passage asked for with `part`, numbered from 1 as excerpts number them; null without `part`. */
  part: { index: number; text: string } | null;
}

export interface ThreadStateValue {
  thread: ThreadView;
  facts: StoredFactView[];
  /** Whether current facts past STATE_FACT_LIMIT were left out (GET /facts pages through them all). */
  facts_truncated: boolean;
  working_set: { key: string; value: unknown; ts: string; expires_at: string | null }[];
  environment_facts: { key: string; value: unknown; ts: string }[];
  message_count: number;
  unindexed_messages: number;
  watermark: WatermarkView;
  items: StateItem[];
  rendered_state: string;
}

/**
 * The thread object's RPC surface, as the Worker and other thread objects call it. Declared apart from
 * the class so that the Worker's bindings (src/env.ts) name it without importing the object.
 */
export interface ThreadRpc extends Rpc.DurableObjectBranded {
  create(
    tenant: string,
    thread: string,
    input: CreateThreadInput,
  ): Promise<{ created: boolean; thread: ThreadView }>;
  ingest(tenant: string, thread: string, events: EventInput[]): Promise<Outcome<IngestOutput>>;
  compile(tenant: string, thread: string, request: ContextInput): Promise<Outcome<ContextResponseOutput>>;
  state(tenant: string, thread: string): Promise<Outcome<ThreadStateValue>>;
  extract(
    tenant: string,
    thread: string,
    options: Partial<ExtractionLimits>,
  ): Promise<Outcome<ExtractResult | null>>;
  recordDeadJob(tenant: string, thread: string, job: { message_id: string; attempts: number }): Promise<void>;
  extractions(tenant: string, thread: string): Promise<Outcome<ExtractionLog>>;
  expand(tenant: string, thread: string, uid: string): Promise<Outcome<ExpandedItem>>;
  message(tenant: string, thread: string, id: string, part?: number): Promise<Outcome<MessageView>>;
  backfillMentions(
    tenant: string,
    thread: string,
    options: { limit: number; restart: boolean },
  ): Promise<Outcome<MentionBackfillOutput>>;
  factsChanged(
    tenant: string,
    thread: string,
    projectId: string,
    token: string,
    revision: number,
  ): Promise<boolean>;
}
