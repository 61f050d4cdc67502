import { z } from "@hono/zod-openapi";
import { CompileTrace } from "./context";
import { TenantParams } from "./threads";

/** Stored compile traces, read back by id. */

export const TraceParams = TenantParams.extend({
  trace_id: z
    .string()
    .regex(/^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{26}$/, "must be a 26-character ULID, as returned in `trace_id`")
    .openapi({ param: { name: "trace_id", in: "path" }, example: "01JD3K4M5N6P7Q8R9S0T1V2W3X" }),
});

export const TraceView = z
  .object({
    trace_id: z.string(),
    tenant: z.string(),
    project_id: z.string(),
    thread: z.string(),
    created_at: z.string(),
    query_sha256: z.string().openapi({
      description:
        "SHA-256 (hex) of the query. The text is not stored: the trace names objects, not their content, " +
        "and an auditor holding a query can check it against this.",
    }),
    query_chars: z.number().int(),
    budget_tokens: z.number().int(),
    tokens: z.number().int(),
    compile_ms: z.number(),
    candidates: z.object({
      considered: z.number().int(),
      compiled: z.number().int(),
      omitted: z.number().int(),
      quarantined: z.number().int(),
    }),
    trace: CompileTrace,
  })
  .openapi("TraceView");

export type TraceViewOutput = z.infer<typeof TraceView>;
