import type { ContextObject } from "../context-object";

/**
 * Pass 2: entity resolution. Each object gets the canonical ids of what it is about: its slot (the
 * key a fact, working-set or environment entry fills, aliases included) and the identifiers it names.
 * Only distinctive identifiers count — ticket-style codes ("TICKET-9999"), numbered things
 * ("build #1234") and internal-capital names ("VendorX") — because ordinary capitalised words would
 * tie unrelated objects together.
 */

/**
 * Each pattern with what any match of it must contain: most texts name no identifier, and a scan for
 * the one thing a match cannot do without is several times cheaper than trying the pattern at every
 * word (identifiersIn runs on every new object's text).
 */
const IDENTIFIER_PATTERNS: readonly { needs: RegExp; pattern: RegExp }[] = [
  { needs: /-\d/, pattern: /\b[A-Z][A-Z0-9]*-\d+[A-Z0-9]*\b/g },
  { needs: /#/, pattern: /\b([a-z]+)\s+#\s?(\d+)\b/gi },
  { needs: /[a-z][A-Z]/, pattern: /\b[A-Z][a-z]+[A-Z][A-Za-z0-9]*\b/g },
];

export const slotEntity = (key: string) =>
  `slot:${key
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_")}`;

export function identifiersIn(text: string): string[] {
  const found = new Set<string>();
  for (const { needs, pattern } of IDENTIFIER_PATTERNS) {
    if (!needs.test(text)) continue;
    for (const match of text.matchAll(pattern)) {
      const id = match[2] ? `${match[1]?.toLowerCase()}#${match[2]}` : match[0].toLowerCase();
      found.add(`id:${id}`);
    }
  }
  return [...found];
}

export function resolveEntities(objects: ContextObject[]): ContextObject[] {
  return objects.map(resolveEntity);
}

/** One object's entities depend on that object alone, so a warm thread resolves each object once. */
export function resolveEntity(object: ContextObject): ContextObject {
  return { ...object, entityIds: entityIdsOf(object) };
}

/** The entity ids resolveEntity gives an object: its own, its slot's and aliases', and its identifiers'. */
export function entityIdsOf(object: ContextObject): string[] {
  const ids = new Set(object.entityIds);
  if (object.key) ids.add(slotEntity(object.key));
  for (const alias of object.aliases) ids.add(slotEntity(alias));
  for (const id of identifiersIn(object.claim ?? object.text)) ids.add(id);
  return [...ids];
}

/** The neighbourhood of each entity: which objects speak about it. */
export function neighbourhoods(objects: ContextObject[]): Map<string, ContextObject[]> {
  const byEntity = new Map<string, ContextObject[]>();
  for (const object of objects) {
    for (const id of object.entityIds) {
      const list = byEntity.get(id);
      if (list) list.push(object);
      else byEntity.set(id, [object]);
    }
  }
  return byEntity;
}
