import { z } from "zod";
import type { TraceViewOutput } from "../api/schemas/traces";
import type { CompileTrace } from "../domain/trace";
import { decodeEntries, type EntryTable, encodeEntries, type TraceEntry } from "./entry-table";
import { unpackTrace } from "./trace-packing";
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
  trace: CompileTrace;
}

/**
 * How `trace_json` holds a trace since format 2: the trace's own fields under `trace`, and its three
 * entry lists in entry-table form under `lists` (src/traces/entry-table.ts says why). Rows written
 * before hold the trace itself, flat, and are read as they are. Since format 3 the text is stored packed
 * (trace-packing.ts): traceRowFrom gives format 2, persist-trace.ts packs it.
 */
const STORED_FORMAT = 2;
interface StoredTrace {
  v: typeof STORED_FORMAT;
  trace: Record<string, unknown>;
  lists: { compiled: EntryTable; omitted: EntryTable; quarantined: EntryTable };
}

/**
 * The trace is the compiler's own typed output, so it is not re-validated entry by entry here: at
 * 10,000 objects that alone cost the compile's Worker about 6 ms of CPU after every compile. Only its
 * three lists are required, and each entry's id, as the encoding reads them.
 */
export function traceRowFrom(facts: TraceFacts): TraceRow {
  const { compiled, omitted, quarantined, ...rest } = facts.trace as unknown as Record<string, unknown>;
  const c = entryList(compiled, "compiled");
  const o = entryList(omitted, "omitted");
  const q = entryList(quarantined, "quarantined");
  const stored: StoredTrace = {
    v: STORED_FORMAT,
    trace: rest,
    lists: { compiled: encodeEntries(c), omitted: encodeEntries(o), quarantined: encodeEntries(q) },
  };
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
    candidateCount: c.length + o.length + q.length,
    compiledCount: c.length,
    omittedCount: o.length,
    quarantinedCount: q.length,
    traceJson: JSON.stringify(stored),
  };
}

export async function traceViewFrom(row: TraceRow): Promise<TraceViewOutput> {
  const stored = JSON.parse(await unpackTrace(row.traceJson));
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
    // Checked against the loose schema as it is read; the published shape is the compiler's own.
    trace: StoredTraceBody.parse(storedTraceBody(stored)) as unknown as CompileTrace,
  };
}

function entryList(list: unknown, name: string): TraceEntry[] {
  if (!Array.isArray(list)) throw new TypeError(`a trace needs its ${name} list`);
  return list as TraceEntry[];
}

function storedTraceBody(stored: unknown): unknown {
  if (typeof stored !== "object" || stored === null || (stored as StoredTrace).v !== STORED_FORMAT) {
    return stored;
  }
  const { trace, lists } = stored as StoredTrace;
  return {
    ...trace,
    compiled: decodeEntries(lists.compiled),
    omitted: decodeEntries(lists.omitted),
    quarantined: decodeEntries(lists.quarantined),
  };
}
