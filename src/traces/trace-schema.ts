import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * One row per compile, in the tenant's own D1. The scalar columns are what an auditor filters on; the
 * compiler's trace itself is kept whole in `trace_json`, in the compact form trace-record.ts writes,
 * gzipped (trace-packing.ts), so fields the compiler adds later are stored without a migration.
 */
export const traces = sqliteTable(
  "traces",
  {
    tenant: text("tenant").notNull(),
    traceId: text("trace_id").notNull(),
    projectId: text("project_id").notNull(),
    thread: text("thread").notNull(),
    createdAt: text("created_at").notNull(),
    /** SHA-256 of the query text; the text itself is not kept (see trace-record.ts). */
    querySha256: text("query_sha256").notNull(),
    queryChars: integer("query_chars").notNull(),
    budgetTokens: integer("budget_tokens").notNull(),
    tokens: integer("tokens").notNull(),
    compileMs: real("compile_ms").notNull(),
    candidateCount: integer("candidate_count").notNull(),
    compiledCount: integer("compiled_count").notNull(),
    omittedCount: integer("omitted_count").notNull(),
    quarantinedCount: integer("quarantined_count").notNull(),
    traceJson: text("trace_json").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.tenant, table.traceId] }),
    index("traces_thread_created").on(table.tenant, table.thread, table.createdAt),
    // Retention deletes a tenant's traces by age (trace-retention.ts).
    index("traces_tenant_created").on(table.tenant, table.createdAt),
  ],
);

export type TraceRow = typeof traces.$inferSelect;
