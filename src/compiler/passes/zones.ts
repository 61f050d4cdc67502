/**
 * Pass 9, order for cache and attention (seed 001): stable, high-authority, reusable blocks first and
 * turn data last, so that an unchanged prefix keeps the provider's prompt cache warm.
 */

import { ZONES, type Zone } from "./order";

export type ZoneName = Zone;

/** Zones up to and including tools change only when rules, policy or tool definitions change. */
export const isStaticZone = (zone: ZoneName) => ZONES.indexOf(zone) <= ZONES.indexOf("tools");

export const STATIC_ZONES: readonly ZoneName[] = ZONES.filter(isStaticZone);

export interface ZoneBlock {
  zone: ZoneName;
  /** Identifies the block within its zone; breaks ties in static zones. */
  id: string;
  text: string;
  /** Author-given position within the zone (the order of the developer's rules, of the tools array). */
  order?: number;
}

/**
 * Orders blocks by zone, then by `order`. Past that, inside a static zone the order depends only on
 * the blocks themselves (`id`), never on how they arrived: policy facts ranked differently for two queries must
 * still produce the same prefix. Inside a dynamic zone arrival order is kept, since it carries ranking
 * and transcript order. Either way the result is deterministic for the same input.
 */
export function orderZones<T extends ZoneBlock>(blocks: readonly T[]): T[] {
  return blocks
    .map((block, arrival) => ({ block, arrival }))
    .sort((a, b) => {
      const byZone = ZONES.indexOf(a.block.zone) - ZONES.indexOf(b.block.zone);
      if (byZone !== 0) return byZone;
      const byOrder = (a.block.order ?? 0) - (b.block.order ?? 0);
      if (byOrder !== 0) return byOrder;
      if (!isStaticZone(a.block.zone)) return a.arrival - b.arrival;
      return a.block.id < b.block.id ? -1 : a.block.id > b.block.id ? 1 : a.arrival - b.arrival;
    })
    .map((entry) => entry.block);
}

export interface ToolDefinition {
  name: string;
  description: string;
  input_schema?: Record<string, unknown>;
}

/** JSON with object keys sorted, so the same schema always renders to the same prefix bytes. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Zone 3: one line per tool, in the caller's order, its input schema rendered canonically. */
export function toolLines(tools: readonly ToolDefinition[]): string[] {
  return tools.map(
    (tool) =>
      `- ${tool.name}: ${tool.description}` +
      (tool.input_schema ? `\n  input_schema: ${canonicalJson(tool.input_schema)}` : ""),
  );
}
