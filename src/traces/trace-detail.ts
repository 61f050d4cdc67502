import type { ContextResponseOutput } from "../api/schemas/context";
import type { CompiledContext } from "../domain/compiled-context";
import type { OmitReasonName } from "../domain/omissions";

/**
 * The response a request's `trace_detail` asks for. `summary` replaces the omitted list, which on a
 * large thread is most of the response (6,000 entries at 10,000 objects), by a count per reason; the
 * trace stored for `GET /traces/{trace_id}` is the full one either way.
 */
export function withTraceDetail(output: CompiledContext, detail: "full" | "summary"): ContextResponseOutput {
  if (detail === "full") return output;
  const { omitted, ...trace } = output.trace;
  const byReason: Partial<Record<OmitReasonName, number>> = {};
  for (const entry of omitted) byReason[entry.reason] = (byReason[entry.reason] ?? 0) + 1;
  return { ...output, trace: { ...trace, omitted_by_reason: byReason } };
}
