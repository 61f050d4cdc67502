import { createMiddleware } from "hono/factory";

/**
 * For a route whose body fields are all optional: a request with no body at all (what `curl -X POST`
 * sends, with or without `Content-Type: application/json`) reads as `{}`, the body that asks for every
 * default, instead of failing as malformed JSON. Any other body is left to the route's validator.
 */
export const emptyBodyAsObject = createMiddleware(async (c, next) => {
  const raw = c.req.raw;
  if (!raw.body || (await raw.clone().text()).trim() === "") {
    const headers = new Headers(raw.headers);
    headers.set("content-type", "application/json");
    headers.delete("content-length");
    c.req.raw = new Request(raw, { body: "{}", headers });
  }
  await next();
});
