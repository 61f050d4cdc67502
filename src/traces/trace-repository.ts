import { and, eq } from "drizzle-orm";
import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import { type TraceRow, traces } from "./trace-schema";

/** Storage adapter for compile traces in one tenant's D1 database. */
export class TraceRepository {
  private readonly db: DrizzleD1Database;

  constructor(private readonly database: D1Database) {
    this.db = drizzle(database);
  }

  async save(row: TraceRow): Promise<void> {
    await this.db.insert(traces).values(row).onConflictDoNothing();
  }

  /** The tenant is matched as well as the id, so a row can only ever be read back by its own tenant. */
  async find(tenant: string, traceId: string): Promise<TraceRow | undefined> {
    const rows = await this.db
      .select()
      .from(traces)
      .where(and(eq(traces.tenant, tenant), eq(traces.traceId, traceId)))
      .limit(1);
    return rows[0];
  }

  /**
   * Deletes the tenant's oldest traces created before `before` (an ISO timestamp, as stored), at most
   * `limit` of them, through the (tenant, created_at) index; how many it deleted.
   */
  async deleteOlderThan(tenant: string, before: string, limit: number): Promise<number> {
    const result = await this.database
      .prepare(
        `DELETE FROM traces WHERE rowid IN (
          SELECT rowid FROM traces WHERE tenant = ? AND created_at < ? ORDER BY created_at LIMIT ?)`,
      )
      .bind(tenant, before, limit)
      .run();
    return result.meta.changes ?? 0;
  }
}
