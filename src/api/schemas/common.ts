import { z } from "@hono/zod-openapi";
import { TOO_LARGE } from "../../http/problem";

/** Field shapes shared by the published request and response schemas. */

export const isoDateTime = z.iso
  .datetime({ offset: true, local: true })
  .openapi({ example: "2025-11-27T16:00:00Z" });

export const shortText = (max: number) => z.string().trim().min(1).max(max);

/** A message's content: 1 MiB of text, so any message of up to 1 MB of UTF-8 fits. */
export const MAX_MESSAGE_CHARS = 1_048_576;

/**
 * Text whose length is the client's payload, not a malformed field: over `max` characters it is
 * refused as too large (413, naming the field), like a body over the size limit.
 */
export const payloadText = (max: number) =>
  z
    .string()
    .min(1)
    .refine((text) => text.length <= max, { message: `must be at most ${max} characters`, params: TOO_LARGE })
    .openapi({ maxLength: max });

export const roleList = z.array(shortText(100)).max(50);

/** Thread, project and event ids: short, URL-safe, readable in logs. */
export const slugId = () =>
  z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, "must be 1-128 characters of A-Z a-z 0-9 . _ : -");
