import { createMiddleware } from "hono/factory";
import { tooDeepAt } from "./json-depth";
import { ProblemError } from "./problem";

/** Defaults; a deployment may set MAX_BODY_BYTES and MAX_JSON_DEPTH (README, "API"). */
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;
export const DEFAULT_MAX_JSON_DEPTH = 64;

interface LimitVars {
  MAX_BODY_BYTES?: string;
  MAX_JSON_DEPTH?: string;
}

function positiveInt(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : fallback;
}

const tooLarge = (limit: number) =>
  new ProblemError(413, "Payload too large", `The request body is over the limit of ${limit} bytes.`, [
    { field: "", message: `must be at most ${limit} bytes` },
  ]);

/**
 * Bounds a request body's size and JSON depth before anything parses it: a body over the size limit
 * is refused while it is read (a 413, whatever Content-Length claims), and one nested too deep is a
 * 400 naming the field where it goes too deep, so neither reaches JSON.parse or a recursive walk. The
 * request goes on with the bytes read as its body, which the validators parse.
 */
export const bodyLimits = createMiddleware<{ Bindings: LimitVars }>(async (c, next) => {
  const body = c.req.raw.body;
  if (!body) return next();
  const maxBytes = positiveInt(c.env?.MAX_BODY_BYTES, DEFAULT_MAX_BODY_BYTES);
  const maxDepth = positiveInt(c.env?.MAX_JSON_DEPTH, DEFAULT_MAX_JSON_DEPTH);

  const declared = c.req.header("content-length");
  if (declared !== undefined && Number(declared) > maxBytes) {
    await body.cancel();
    throw tooLarge(maxBytes);
  }
  const bytes = await readBounded(body, maxBytes);
  if (bytes === undefined) throw tooLarge(maxBytes);

  const path = tooDeepAt(new TextDecoder().decode(bytes), maxDepth);
  if (path) {
    const message = `is nested deeper than ${maxDepth} levels of JSON`;
    const field = path.join(".");
    throw new ProblemError(400, "Invalid request", `Invalid field(s): ${field || "(body)"}`, [
      { field, message },
    ]);
  }
  c.req.raw = new Request(c.req.raw, { body: bytes });
  await next();
});

/** The body's bytes, or undefined as soon as they pass `maxBytes` (the rest is never read). */
async function readBounded(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
