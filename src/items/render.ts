import { refCount } from "./item-refs";
import type { Confidence, StateItem, StateItemType } from "./types";

/**
 * The structured-state prompt section (seed 002): one terse line per live item, because every token
 * here is taken from the prompt budget. Refs are shown as a count (of every source, kept or not); the
 * sources an item keeps (src/items/item-refs.ts) stay reachable through EXPAND by uid.
 */

const TYPE_PRIORITY: Record<StateItemType, number> = {
  decision: 0,
  constraint: 1,
  action: 2,
  risk: 3,
  question: 4,
};

const CONFIDENCE_PRIORITY: Record<Confidence, number> = { high: 0, medium: 1, low: 2 };

// Text is model-written: a newline in it would let one item forge what reads as another item's line.
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

export function renderItemLine(item: StateItem): string {
  // Only low confidence is worth tokens: it tells the model to double-check; the rest is the norm.
  const status = item.confidence === "low" ? `${item.status}, low` : item.status;
  const topic = item.topic_tags[0];
  const label = topic ? `${oneLine(topic)}: ` : "";
  const conflict = item.conflict ? " CONFLICT" : "";
  return `[${item.uid}] ${item.type_tag.toUpperCase()} (${status}) ${label}${oneLine(item.text)} [refs:${refCount(item)}]${conflict}`;
}

/** Pinned, then by type, confidence and freshness; uid last so equal items never swap between renders. */
export function compareForRender(a: StateItem, b: StateItem): number {
  return (
    Number(b.pinned) - Number(a.pinned) ||
    TYPE_PRIORITY[a.type_tag] - TYPE_PRIORITY[b.type_tag] ||
    CONFIDENCE_PRIORITY[a.confidence] - CONFIDENCE_PRIORITY[b.confidence] ||
    (a.last_seen_at === b.last_seen_at ? 0 : a.last_seen_at > b.last_seen_at ? -1 : 1) ||
    (a.uid === b.uid ? 0 : a.uid < b.uid ? -1 : 1)
  );
}

/** Minute precision is enough to tell the model how stale the state is, at a few tokens' cost. */
function minuteStamp(now: string): string {
  const time = new Date(now);
  return Number.isNaN(time.getTime()) ? now : `${time.toISOString().slice(0, 16)}Z`;
}

/** The section, or "" when nothing is live, so the prompt builder can fall back to the long summary. */
export function renderStateSection(items: StateItem[], now: string): string {
  const live = items.filter((item) => item.status !== "superseded").sort(compareForRender);
  if (live.length === 0) return "";
  const header = `State (updated: ${minuteStamp(now)}, items: ${live.length})`;
  return [header, ...live.map(renderItemLine)].join("\n");
}
