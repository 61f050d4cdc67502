/** The transcript's tables: messages as written, their detail forms, and the scope extraction gave them. */
export const TRANSCRIPT_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS messages (
     id TEXT PRIMARY KEY, ts TEXT NOT NULL, role TEXT NOT NULL, speaker TEXT, content TEXT NOT NULL,
     line TEXT NOT NULL, tokens INTEGER NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS messages_order ON messages (ts, id)`,
  // Seed 004's summary and micro forms of each message, computed when it is written.
  `CREATE TABLE IF NOT EXISTS message_forms (
     id TEXT PRIMARY KEY, summary TEXT NOT NULL, summary_tokens INTEGER NOT NULL, micro TEXT NOT NULL,
     micro_tokens INTEGER NOT NULL)`,
  // Written by extraction's commit through Transcript.rescope, in extraction's transaction.
  `CREATE TABLE IF NOT EXISTS message_scopes (id TEXT PRIMARY KEY, scope TEXT NOT NULL, scope_id TEXT)`,
];
