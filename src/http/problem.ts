import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ZodError } from "zod";

/** One entry per offending field, so clients can point at exactly what to fix. */
export interface FieldError {
  field: string;
  message: string;
}

/** An RFC 9457 problem that a handler can throw; the app's error handler renders it. */
export class ProblemError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly title: string,
    readonly detail?: string,
    readonly errors?: FieldError[],
  ) {
    super(detail ?? title);
  }
}

export function problemResponse(c: Context, problem: ProblemError): Response {
  const body = {
    type: "about:blank",
    title: problem.title,
    status: problem.status,
    ...(problem.detail ? { detail: problem.detail } : {}),
    ...(problem.errors ? { errors: problem.errors } : {}),
  };
  return c.body(JSON.stringify(body), problem.status, { "content-type": "application/problem+json" });
}

export function fieldErrors(error: ZodError, prefix: string): FieldError[] {
  const field = (path: readonly PropertyKey[]) => [prefix, ...path.map(String)].filter(Boolean).join(".");
  return error.issues.flatMap((issue) =>
    // An unknown key is named itself ("reson", not the object holding it), one error per key.
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({ field: field([...issue.path, key]), message: "is not a known field" }))
      : [{ field: field(issue.path), message: issue.message }],
  );
}

/**
 * The params a schema's refinement gives an issue when a field is too large rather than malformed
 * (a message's content over its bound): the request is then a 413, as a body over the limit is.
 */
export const TOO_LARGE = { status: 413 } as const;

const tooLarge = (issue: ZodError["issues"][number]) =>
  issue.code === "custom" && issue.params?.status === TOO_LARGE.status;

export function validationProblem(error: ZodError, target: string): ProblemError {
  const errors = fieldErrors(error, target === "json" ? "" : target);
  const named = errors.map((e) => e.field || "(body)").join(", ");
  if (error.issues.some(tooLarge))
    return new ProblemError(413, "Payload too large", `Too large: ${named}`, errors);
  return new ProblemError(400, "Invalid request", `Invalid field(s): ${named}`, errors);
}
