import { expect } from "vitest";
import { call, message, until } from "../helpers";

/** What the entity tests read of the registry through the API, and how they wait for extraction. */

export type EntityView = { id: string; canonical_name: string; entity_type: string; status: string };
export type MessageRef = { thread_id: string; message_id: string; mention: string };

export const tool = (content: string, extra: Record<string, unknown> = {}) =>
  message(content, { role: "tool", ...extra });

/** Waits until the thread has extracted every message it holds. */
export async function extracted(thread: string) {
  const log = await until(
    () => call("GET", `/threads/${thread}/extractions`),
    (res) => res.json?.watermark?.pending_messages === 0,
  );
  expect(log.json.watermark.pending_messages).toBe(0);
}

/** The project's active and pending entities. */
export async function registry(project: string) {
  const res = await call("GET", `/entities?project_id=${project}`);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json.entities as EntityView[];
}

export const named = (list: EntityView[], name: string) => list.find((e) => e.canonical_name === name);

/** Thirty turns of small talk (ids `<prefix>0`…), said at `ts(i)`: what pushes a turn out of the recent window. */
export const smallTalk = (prefix: string, ts: (i: number) => string) =>
  Array.from({ length: 30 }, (_, i) =>
    message(`Small talk ${i}: the ${["weather", "coffee", "lunch"][i % 3]} is fine.`, {
      id: `${prefix}${i}`,
      ts: ts(i),
      role: i % 2 ? "assistant" : "user",
    }),
  );
