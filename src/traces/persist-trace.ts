import type { ContextOutput } from "../api/schemas";
import { sha256Hex } from "../tenancy/keys";
import { packTrace } from "./trace-packing";
import { traceRowFrom } from "./trace-record";
import { TraceRepository } from "./trace-repository";

/** Where a compile happened: the tenant's database and the thread that compiled. */
export interface TraceOrigin {
  tenant: string;
  database: D1Database;
  projectId: string;
  thread: string;
}

/**
 * Stores one compile's trace in the tenant's D1. Awaited before the compile answers, so a client can
 * read a trace by the id it was just given; waitUntil would not help here, as it does not extend a
 * Durable Object's life. A failure is logged and never fails the compile: the context is already correct.
 */
export async function persistTrace(
  origin: TraceOrigin,
  query: string,
  output: ContextOutput,
  createdAt: string,
): Promise<void> {
  try {
    const row = traceRowFrom({
      tenant: origin.tenant,
      traceId: output.trace_id,
      projectId: origin.projectId,
      thread: origin.thread,
      createdAt,
      querySha256: await sha256Hex(query),
      queryChars: query.length,
      budgetTokens: output.budget_tokens,
      tokens: output.tokens,
      compileMs: output.trace.compile_ms ?? 0,
      trace: output.trace,
    });
    await new TraceRepository(origin.database).save({ ...row, traceJson: await packTrace(row.traceJson) });
  } catch (error) {
    console.error("could not persist compile trace", origin.tenant, origin.thread, output.trace_id, error);
  }
}
