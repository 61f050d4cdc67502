import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";

/**
 * Migration 0005 builds a unique index over current fact versions. A database written before it may hold
 * several current versions of a slot; the migration closes all but the newest first instead of failing.
 * Replayed here on a database put back in that state (storage is isolated per test file).
 */

const MIGRATION = "0005_one_current_fact.sql";

function row(id: string, validFrom: string, extra: { userId?: string | null; key?: string } = {}) {
  return env.TENANT_DEV_DB.prepare(
    `INSERT INTO facts (project_id, id, lineage_id, key, value_json, content, tokens, memory_type, user_id,
       thread_id, source_type, authority_rank, scope, is_valid, contradiction_status, depends_on_json,
       needs_review, is_constraint, classification, allow_roles_json, deny_roles_json, valid_from, tx_start)
     VALUES ('legacy', ?, ?, ?, '"x"', 'k: x', 1, 'user', ?, 't', 'user', 2, 'global', 1, 'clean', '[]', 0, 0,
       'public', '[]', '[]', ?, '2025-01-01T00:00:00.000Z')`,
  ).bind(id, id, extra.key ?? "k", extra.userId === undefined ? "u1" : extra.userId, validFrom);
}

describe("migration 0005 on a database holding duplicate current versions", () => {
  it("closes all but the newest current version of each slot, then builds the index", async () => {
    const migration = env.TEST_MIGRATIONS.find((m) => m.name === MIGRATION);
    expect(migration).toBeDefined();
    const db = env.TENANT_DEV_DB;
    await db.exec("DROP INDEX facts_one_current");
    await db.exec("DROP TABLE fact_plan_checks");
    await db.batch([
      db.prepare("INSERT INTO fact_revisions (project_id, revision) VALUES ('legacy', 7)"),
      row("a", "2025-01-01T00:00:00.000Z"),
      row("b", "2025-03-01T00:00:00.000Z"),
      row("c", "2025-02-01T00:00:00.000Z"),
      // Another user's private slot and another key are slots of their own: untouched.
      row("d", "2025-01-01T00:00:00.000Z", { userId: "u2" }),
      row("e", "2025-01-01T00:00:00.000Z", { key: "other" }),
    ]);

    for (const query of migration?.queries ?? []) await db.prepare(query).run();

    const { results } = await db
      .prepare(
        "SELECT id, tx_end, is_valid, superseded_by, revision FROM facts WHERE project_id = 'legacy' ORDER BY id",
      )
      .all<{
        id: string;
        tx_end: string | null;
        is_valid: number;
        superseded_by: string | null;
        revision: number;
      }>();
    const current = results.filter((r) => r.tx_end === null).map((r) => r.id);
    expect(current).toEqual(["b", "d", "e"]);
    for (const closed of results.filter((r) => r.tx_end !== null)) {
      expect(closed).toMatchObject({ is_valid: 0, superseded_by: "b", revision: 8 });
    }
    // The index now holds: a second current version of the slot is refused.
    await expect(row("f", "2025-04-01T00:00:00.000Z").run()).rejects.toThrow(/facts_one_current/);
  });
});
