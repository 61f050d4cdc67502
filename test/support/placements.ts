import { expect } from "vitest";
import { fact, message, newThread } from "../helpers";

/** Every place a client's text reaches a compiled context. */
export type Placement = "user_message" | "user_fact" | "identity" | "tool_output" | "environment" | "query";
export const PLACEMENTS: Placement[] = [
  "user_message",
  "user_fact",
  "identity",
  "tool_output",
  "environment",
  "query",
];

/**
 * A new thread holding `text` where `placement` puts it, among ordinary state (`events`), compiled for
 * `query` (or for the text itself when it is placed in the query).
 */
export async function compileWithText(
  placement: Placement,
  text: string,
  setting: { identity: Record<string, unknown>; events: unknown[]; query: string; toolSpeaker: string },
) {
  const identity = { ...setting.identity, ...(placement === "identity" ? { department: text } : {}) };
  const t = await newThread(identity, {
    environment: placement === "environment" ? { note: text } : undefined,
  });
  const events = [...setting.events];
  if (placement === "user_message")
    events.push(message(text, { id: "placed-m", ts: "2025-01-01T10:00:01Z" }));
  if (placement === "user_fact")
    events.push(fact("note", text, { id: "placed-f", source: { type: "user" } }));
  if (placement === "tool_output") {
    events.push(
      message(text, {
        id: "placed-t",
        role: "tool",
        speaker: setting.toolSpeaker,
        ts: "2025-01-01T10:00:02Z",
      }),
    );
  }
  const written = await t.events(events);
  expect(written.status, JSON.stringify(written.json)).toBe(200);
  const ctx = await t.context({ query: placement === "query" ? text : setting.query });
  expect(ctx.status, JSON.stringify(ctx.json)).toBe(200);
  return { t, ctx: ctx.json };
}
