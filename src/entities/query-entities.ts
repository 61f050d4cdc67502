import { DEFAULT_ENTITY_THRESHOLDS, type EntityThresholds } from "../domain/entities";
import type { PendingReference, QueryEntity } from "../domain/trace";
import { EntityRepository, pendingReferences, registryEntities } from "./entity-repository";
import { MemoryRegistry } from "./memory-registry";
import { ruleMentions } from "./mentions/rule-mention-extractor";
import { decide } from "./resolution/decide";
import { scoreCandidate } from "./resolution/score";
import { mentionLookup } from "./resolution/terms";

/** A question names a few things; a longer "name" is prose, and past this many mentions it is a document. */
const MAX_NAME = 200;
const MAX_MENTIONS = 20;

/**
 * A lookup of the canonical entities a text names, split so that its read can ride in another batch: the
 * statements to send, and what their results bind. It also reads which facts refer to a pending entity,
 * whatever the text: seed 001 keeps those out of high-authority constraints until they are reviewed.
 */
export interface EntityLookup {
  statements: D1PreparedStatement[];
  decode(results: readonly D1Result[]): NamedEntities;
}

export interface NamedEntities {
  entities: QueryEntity[];
  pending: PendingReference[];
}

/**
 * The canonical entities a question (or any text a compile searches with) names: its mentions, found by
 * the offline rules, bound where seed 001 binds (at or above the tenant's `bind` threshold, unambiguous).
 * Nothing is created and nothing is sent to review: a question reads the registry, never writes it. One
 * D1 read (every mention's candidate terms at once).
 */
export async function queryEntities(
  database: D1Database,
  projectId: string,
  text: string,
  thresholds: EntityThresholds = DEFAULT_ENTITY_THRESHOLDS,
): Promise<QueryEntity[]> {
  const lookup = entityLookup(database, projectId, text, thresholds);
  return lookup.decode(await database.batch(lookup.statements)).entities;
}

/** queryEntities in two halves (EntityLookup), with the pending references: a compile sends the read with its fact search. */
export function entityLookup(
  database: D1Database,
  projectId: string,
  text: string,
  thresholds: EntityThresholds = DEFAULT_ENTITY_THRESHOLDS,
): EntityLookup {
  const repository = new EntityRepository(database);
  const mentions = ruleMentions({ text, origin: "message" })
    .filter((m) => m.name.length <= MAX_NAME && m.text.length <= MAX_NAME)
    .slice(0, MAX_MENTIONS);
  const lookups = mentions.map(mentionLookup);
  const terms = [...new Set(lookups.flatMap((l) => l.terms))];
  const prefixes = [...new Set(lookups.flatMap((l) => l.prefixes))];
  // Mentions are scored here with no co-mentioned entities, so the candidates' neighbourhoods are not
  // read to score them; the neighbourhood of what the text names is read with its facts (fact-repository.ts).
  const named = mentions.length
    ? repository.candidateStatements(projectId, terms, prefixes, { neighbours: false })
    : [];
  return {
    statements: [...named, repository.pendingReferencesStatement(projectId)],
    decode(results) {
      const pending = pendingReferences(results[named.length]);
      const registry = new MemoryRegistry(registryEntities(results.slice(0, named.length)));
      const found = new Map<string, QueryEntity>();
      for (const mention of mentions) {
        const scored = registry.candidates(mention).map((entity) => scoreCandidate(mention, entity, {}));
        const decision = decide(mention, scored, thresholds);
        if (decision.kind !== "bind" || found.has(decision.best.entity.id)) continue;
        const entity = decision.best.entity;
        found.set(entity.id, {
          id: entity.id,
          name: entity.canonicalName,
          mention: mention.text,
          pending: entity.status === "pending",
        });
      }
      return { entities: [...found.values()], pending };
    },
  };
}
