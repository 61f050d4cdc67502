import type { CreateThreadInput } from "../api/schemas";
import type { Identity } from "../domain/identity";
import { deepFreeze } from "./deep-freeze";
import type { ClockHost } from "./host";
import type { ThreadMeta } from "./thread-meta";

/** Who the thread is: set once by `create`, read-only afterwards. */
export interface ThreadRecord {
  tenant: string;
  thread: string;
  project_id: string;
  identity: Identity;
  environment: Record<string, unknown>;
  created_at: string;
}

export type ThreadView = Omit<ThreadRecord, "created_at">;

const KEY = "thread";

/**
 * The thread's record under the meta key `thread`. It is written once and never changed, so it is read
 * from storage only until it is found, and then held (frozen: every request shares it).
 */
export class ThreadRecords {
  private held: ThreadRecord | undefined;

  constructor(
    private readonly meta: ThreadMeta,
    private readonly clock: ClockHost,
  ) {}

  current(): ThreadRecord | undefined {
    if (this.held) return this.held;
    const raw = this.meta.raw(KEY);
    if (raw === undefined) return undefined;
    this.held = deepFreeze(JSON.parse(raw) as ThreadRecord);
    return this.held;
  }

  /** The record, when it belongs to this tenant and thread: the object checks its name on every call. */
  owned(tenant: string, thread: string): ThreadRecord | undefined {
    const record = this.current();
    return record && record.tenant === tenant && record.thread === thread ? record : undefined;
  }

  /** Creates the record, or returns the one that exists (identity never changes after creation). */
  create(tenant: string, thread: string, input: CreateThreadInput): { created: boolean; thread: ThreadView } {
    const existing = this.current();
    if (existing) return { created: false, thread: viewOf(existing) };
    const record: ThreadRecord = {
      tenant,
      thread,
      project_id: input.project_id,
      identity: input.identity,
      environment: input.environment ?? {},
      created_at: this.clock.now(),
    };
    this.meta.set(KEY, record);
    return { created: true, thread: viewOf(record) };
  }
}

export function viewOf(record: ThreadRecord): ThreadView {
  return {
    tenant: record.tenant,
    thread: record.thread,
    project_id: record.project_id,
    identity: record.identity,
    environment: record.environment,
  };
}

/** Who reads facts through this thread's copy: the project, the user whose own facts join, the holder. */
export const readerOf = (record: ThreadRecord) => ({
  projectId: record.project_id,
  userId: record.identity.user_id,
  thread: record.thread,
});
