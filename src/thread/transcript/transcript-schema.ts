/**
 * The transcript's tables: messages as written, their detail forms, and the scope extraction gave them.
 * `seq` is the arrival sequence (1, 2, 3 … as messages are stored), which extraction follows: a message
 * that arrives late with an old `ts` is still after the watermark.
 */
export const TRANSCRIPT_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS messages (
     id TEXT PRIMARY KEY, ts TEXT NOT NULL, role TEXT NOT NULL, speaker TEXT, content TEXT NOT NULL,
     line TEXT NOT NULL, tokens INTEGER NOT NULL, seq INTEGER)`,
  `CREATE INDEX IF NOT EXISTS messages_order ON messages (ts, id)`,
  // Seed 004's summary and micro forms of each message, computed when it is written.
  `CREATE TABLE IF NOT EXISTS message_forms (
     id TEXT PRIMARY KEY, summary TEXT NOT NULL, summary_tokens INTEGER NOT NULL, micro TEXT NOT NULL,
     micro_tokens INTEGER NOT NULL)`,
  // Written by extraction's commit through Transcript.rescope, in extraction's transaction.
  `CREATE TABLE IF NOT EXISTS message_scopes (id TEXT PRIMARY KEY, scope TEXT NOT NULL, scope_id TEXT)`,
];

/**
 * Threads stored before `seq` existed get it added, numbered in the order their rows were inserted
 * (rowid: messages are never deleted), before its index is created.
 */
export function addArrivalSequence(sql: SqlStorage): void {
  const columns = sql.exec<{ name: string }>("PRAGMA table_info(messages)").toArray();
  if (!columns.some((c) => c.name === "seq")) sql.exec("ALTER TABLE messages ADD COLUMN seq INTEGER");
  sql.exec("UPDATE messages SET seq = rowid WHERE seq IS NULL");
  sql.exec("CREATE UNIQUE INDEX IF NOT EXISTS messages_seq ON messages (seq)");
}
