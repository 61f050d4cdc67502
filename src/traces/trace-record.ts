import { z } from "zod";
import type { CompileTraceOutput, TraceViewOutput } from "../api/schemas";
import type { TraceRow } from "./trace-schema";

/**
 * What the store insists on in a trace body. Everything is a loose object, so fields the compiler adds
 * to its trace (authority, confidence, priority tier, cache metadata...) are stored and returned as they
 * are, without this module having to know them.
 */
const traceEntry = z.looseObject({ object_id: z.string() });
export const StoredTraceBody = z.looseObject({
  compiled: z.array(traceEntry),
  omitted: z.array(traceEntry),
  quarantined: z.array(traceEntry),
});

export interface TraceFacts {
  tenant: string;
  traceId: string;
  projectId: string;
  thread: string;
  createdAt: string;
  /**
   * Hex SHA-256 of the query. The raw query is not kept: it is free text that may carry whatever the
   * user typed, the rest of the trace deliberately holds ids rather than content, and a hash still lets
   * an auditor confirm which query produced a context.
   */
  querySha256: string;
  queryChars: number;
  budgetTokens: number;
  tokens: number;
  compileMs: number;
  trace: CompileTraceOutput;
}

export function traceRowFrom(facts: TraceFacts): TraceRow {
  const body = StoredTraceBody.parse(facts.trace);
  return {
    tenant: facts.tenant,
    traceId: facts.traceId,
    projectId: facts.projectId,
    thread: facts.thread,
    createdAt: facts.createdAt,
    querySha256: facts.querySha256,
    queryChars: facts.queryChars,
    budgetTokens: facts.budgetTokens,
    tokens: facts.tokens,
    compileMs: facts.compileMs,
    candidateCount: body.compiled.length + body.omitted.length + body.quarantined.length,
    compiledCount: body.compiled.length,
    omittedCount: body.omitted.length,
    quarantinedCount: body.quarantined.length,
    traceJson: JSON.stringify(body),
  };
}

export function traceViewFrom(row: TraceRow): TraceViewOutput {
  return {
    trace_id: row.traceId,
    tenant: row.tenant,
    project_id: row.projectId,
    thread: row.thread,
    created_at: row.createdAt,
    query_sha256: row.querySha256,
    query_chars: row.queryChars,
    budget_tokens: row.budgetTokens,
    tokens: row.tokens,
    compile_ms: row.compileMs,
    candidates: {
      considered: row.candidateCount,
      compiled: row.compiledCount,
      omitted: row.omittedCount,
      quarantined: row.quarantinedCount,
    },
    // Validated against the loose schema when written; the published shape is the compiler's own.
    trace: StoredTraceBody.parse(JSON.parse(row.traceJson)) as unknown as CompileTraceOutput,
  };
}
