import type { SqlHost } from "./host";

export const META_SCHEMA = [`CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)`];

/**
 * The thread's small key-value table (`meta`), shared by capabilities the way a host offers one store
 * for scalars: each capability reads and writes only its own keys (the record `thread`; extraction's
 * `extracted_through`, `open_scope`, `slot_aliases`, `mentioned_seq`, `weak_names_checked`; the transcript's `episode_index_backfilled`).
 * Values are JSON.
 */
export class ThreadMeta {
  constructor(private readonly host: SqlHost) {
    for (const statement of META_SCHEMA) host.sql.exec(statement);
  }

  /** The raw JSON stored under `key`, if any. */
  raw(key: string): string | undefined {
    return this.host.sql.exec<{ v: string }>("SELECT v FROM meta WHERE k = ?", key).toArray()[0]?.v;
  }

  get<T>(key: string): T | undefined {
    const raw = this.raw(key);
    return raw === undefined ? undefined : (JSON.parse(raw) as T);
  }

  set(key: string, value: unknown): void {
    this.host.sql.exec(
      "INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v",
      key,
      JSON.stringify(value),
    );
  }
}
