import { z } from "@hono/zod-openapi";

/** Field shapes shared by the published request and response schemas. */

export const isoDateTime = z.iso
  .datetime({ offset: true, local: true })
  .openapi({ example: "2025-11-27T16:00:00Z" });

export const shortText = (max: number) => z.string().trim().min(1).max(max);

export const roleList = z.array(shortText(100)).max(50);

/** Thread, project and event ids: short, URL-safe, readable in logs. */
export const slugId = () =>
  z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, "must be 1-128 characters of A-Z a-z 0-9 . _ : -");
