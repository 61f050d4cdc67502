import { sha256Hex } from "../items/sha256";

/**
 * Resolution plans name what they create by provisional ids ("new:person:dana whitfield",
 * "review:new:…"), and the write path gives each a stable one: a UUID from the SHA-256 of the project
 * and the provisional id. Two threads that meet the same new name at once therefore create the same
 * entity (the second insert is a no-op) rather than two, and a retried write reuses its ids.
 */
const PROVISIONAL = /^(?:new|review):/;
const ID_FIELDS = new Set(["id", "entityId", "candidateId", "runnerUpId"]);

export function stableId(projectId: string, provisional: string): string {
  const hex = sha256Hex(`${projectId}\n${provisional}`);
  // Shaped as a version 5 (name-based) UUID, as seed 001's canonical_entity_ids are UUIDs.
  const variant = ((Number.parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * A copy of `value` (plain data: objects, arrays, strings, numbers, booleans, null) with every
 * provisional id in an id field replaced by its stable id, as a JSON round trip would copy it: keys whose
 * value is undefined are left out. A plan of 500 facts repeats each new entity's id in many links and
 * outcomes, so each id is hashed once.
 */
export function withStableIds<T>(value: T, projectId: string): T {
  const stable = new Map<string, string>();
  const copy = (v: unknown, key: string): unknown => {
    if (typeof v === "string") {
      if (!ID_FIELDS.has(key) || !PROVISIONAL.test(v)) return v;
      let id = stable.get(v);
      if (id === undefined) {
        id = stableId(projectId, v);
        stable.set(v, id);
      }
      return id;
    }
    if (Array.isArray(v)) return v.map((item, i) => copy(item === undefined ? null : item, String(i)));
    if (v === null || typeof v !== "object") return v;
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(v)) if (item !== undefined) out[k] = copy(item, k);
    return out;
  };
  return copy(value, "") as T;
}
