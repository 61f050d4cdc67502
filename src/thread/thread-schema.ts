/** The thread's own SQLite schema, created idempotently whenever the object starts. */
export const THREAD_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS event_ledger (id TEXT PRIMARY KEY, kind TEXT NOT NULL, received_at TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS messages (
     id TEXT PRIMARY KEY, ts TEXT NOT NULL, role TEXT NOT NULL, speaker TEXT, content TEXT NOT NULL,
     line TEXT NOT NULL, tokens INTEGER NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS messages_order ON messages (ts, id)`,
  // Seed 004's summary and micro forms of each message, computed when it is written.
  `CREATE TABLE IF NOT EXISTS message_forms (
     id TEXT PRIMARY KEY, summary TEXT NOT NULL, summary_tokens INTEGER NOT NULL, micro TEXT NOT NULL,
     micro_tokens INTEGER NOT NULL)`,
  // Working-set and environment entries, every version kept: the current one per key has no
  // replaced_by, and older values stay so the compiler can recognise them restated in messages.
  `CREATE TABLE IF NOT EXISTS layer_versions (
     layer TEXT NOT NULL, id TEXT NOT NULL, key TEXT NOT NULL, value_json TEXT NOT NULL, content TEXT NOT NULL,
     tokens INTEGER NOT NULL, ts TEXT NOT NULL, expires_at TEXT, scope TEXT NOT NULL, scope_id TEXT,
     classification TEXT NOT NULL, allow_roles_json TEXT NOT NULL, deny_roles_json TEXT NOT NULL,
     replaced_by TEXT, PRIMARY KEY (layer, id))`,
  `CREATE INDEX IF NOT EXISTS layer_versions_current ON layer_versions (layer, key, replaced_by)`,
];

export interface ThreadRecord {
  tenant: string;
  thread: string;
  project_id: string;
  identity: import("../api/schemas").IdentityInput;
  environment: Record<string, unknown>;
  created_at: string;
}

export type LayerName = "working" | "environment";
