import { z } from "@hono/zod-openapi";

/** An RFC 9457 problem document: every error response has this shape. */
export const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .openapi("Problem");
