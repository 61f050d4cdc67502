import type { MessageScreen } from "../../compiler/types";
import type { Identity } from "../../domain/identity";
import type { ScreenKind } from "../../domain/screening";
import { screenNotice, screenTurn } from "../../screening/screen-turn";

/**
 * The thread's screening verdicts on user turns (src/screening), decided when a turn is written and
 * kept beside it, like its detail forms: extraction leaves screened turns out, and the compiler
 * shows the stored notice in their place. A verdict weighs the thread as it stood when the turn
 * arrived, which is what the caller could have been referring to.
 */
export const SCREEN_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS message_screens (
     id TEXT PRIMARY KEY, kind TEXT NOT NULL, detail TEXT NOT NULL, line TEXT NOT NULL, tokens INTEGER NOT NULL)`,
];

export class TurnScreens {
  private held: Map<string, MessageScreen> | undefined;

  constructor(private readonly sql: SqlStorage) {
    for (const statement of SCREEN_SCHEMA) sql.exec(statement);
  }

  /**
   * Screens one stored user turn. Call after the turn (and any earlier turns of its batch) is
   * inserted; `prefix` is the "[ts] speaker: " the stored line starts with.
   */
  screen(
    message: { id: string; ts: string; content: string; prefix: string },
    identity: Identity,
    countTokens: (text: string) => number,
  ): MessageScreen | null {
    const verdict = screenTurn(message.content, {
      identity,
      recorded: (words) => this.mentionedBefore(words, message),
    });
    if (!verdict) return null;
    const line = `${message.prefix}${screenNotice(verdict.kind)}`;
    const screen = { kind: verdict.kind, detail: verdict.detail, line, tokens: countTokens(line) };
    this.sql.exec(
      "INSERT OR REPLACE INTO message_screens (id, kind, detail, line, tokens) VALUES (?, ?, ?, ?, ?)",
      message.id,
      screen.kind,
      screen.detail,
      screen.line,
      screen.tokens,
    );
    // Dropped rather than updated: the write may yet roll back with its transaction.
    this.held = undefined;
    return screen;
  }

  /** Whether a message before this one mentions any of the words (case-insensitive, whole words). */
  private mentionedBefore(words: string[], before: { id: string; ts: string }): boolean {
    const terms = words.flatMap((w) => w.match(/[\p{L}\p{N}]+/gu) ?? []);
    if (terms.length === 0) return false;
    // Each word is quoted as an FTS5 string, so no query syntax reaches the expression.
    const match = terms.map((t) => `"${t.toLowerCase()}"`).join(" OR ");
    return (
      this.sql
        .exec(
          `SELECT 1 FROM episode_fts f JOIN messages m ON m.id = f.id
           WHERE episode_fts MATCH ? AND (m.ts < ? OR (m.ts = ? AND m.id < ?)) LIMIT 1`,
          match,
          before.ts,
          before.ts,
          before.id,
        )
        .toArray().length > 0
    );
  }

  /** Verdicts for the given messages, by id. */
  of(ids: readonly string[]): Map<string, MessageScreen> {
    const held = this.all();
    const found = new Map<string, MessageScreen>();
    if (held.size === 0) return found;
    for (const id of ids) {
      const screen = held.get(id);
      if (screen) found.set(id, screen);
    }
    return found;
  }

  /**
   * Every verdict, read once and then kept: this object is the only writer of its table, and screened
   * turns are rare, so a compile looks its messages up in memory instead of querying for each batch.
   */
  private all(): Map<string, MessageScreen> {
    if (!this.held) {
      this.held = new Map();
      const rows = this.sql
        .exec<{ id: string; kind: string; detail: string; line: string; tokens: number }>(
          "SELECT id, kind, detail, line, tokens FROM message_screens",
        )
        .toArray();
      for (const r of rows) {
        this.held.set(r.id, { kind: r.kind as ScreenKind, detail: r.detail, line: r.line, tokens: r.tokens });
      }
    }
    return this.held;
  }
}
