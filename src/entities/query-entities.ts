import { DEFAULT_ENTITY_THRESHOLDS, type EntityThresholds } from "../domain/entities";
import type { QueryEntity, RegistryPart } from "../domain/trace";
import { EntityRepository, pendingReferences, registryEntities } from "./entity-repository";
import { MemoryRegistry } from "./memory-registry";
import { ruleMentions } from "./mentions/rule-mention-extractor";
import type { RegistryEntity } from "./registry-entity";
import { decide } from "./resolution/decide";
import { scoreCandidate } from "./resolution/score";
import { mentionLookup } from "./resolution/terms";

/** A question names a few things; a longer "name" is prose, and past this many mentions it is a document. */
const MAX_NAME = 200;
const MAX_MENTIONS = 20;
/**
 * Registry terms a reader holds at most (a few per entity): past them, every named question looks the
 * registry up. Bounds what a thread object keeps, whatever the registry's size.
 */
const HELD_REGISTRY_TERMS = 1000;

/**
 * A lookup of the canonical entities a text names, split so that its read can ride in another batch: the
 * statements to send (none when the text names nothing), and what their results bind. Apart, because it
 * does not depend on the text, the read of which facts refer to a pending entity: seed 001 keeps those
 * out of high-authority constraints until they are reviewed. A reader holding the project's facts at
 * its current revision holds that answer with them (every review decision moves the revision on), so a
 * new question that names nothing reads nothing.
 */
export interface EntityLookup {
  statements: D1PreparedStatement[];
  decode(results: readonly D1Result[]): NamedEntities;
  /**
   * The registry's part that does not depend on the text: its pending references and, `withTerms`, its
   * terms while they are few (without, `terms` is undefined: any name may match).
   */
  registryStatements(withTerms: boolean): D1PreparedStatement[];
  decodeRegistry(results: readonly D1Result[]): RegistryPart;
  /**
   * The entities the text names, resolved from a held registry part that holds the registry's every
   * entity (as `decode` would from the statements' answer); undefined when it does not.
   */
  decodeHeld(registry: RegistryPart): NamedEntities | undefined;
  /**
   * False only when none of the text's lookup terms is among `terms` (the registry's every term) and
   * none of them starts with one of its prefixes: the statements would then find no entity.
   */
  mayMatch(terms: readonly string[] | undefined): boolean;
}

export interface NamedEntities {
  entities: QueryEntity[];
  /** Every name (normalised alias) of each entity bound, by id: what the thread's messages are looked up by. */
  names?: Record<string, string[]>;
}

/**
 * The registry a reader holds, indexed once: a held part is not changed while it is held (a new revision
 * brings a new part), so every question resolved against it shares one index.
 */
const heldRegistries = new WeakMap<readonly RegistryEntity[], MemoryRegistry>();
function heldRegistry(entities: readonly RegistryEntity[]): MemoryRegistry {
  let registry = heldRegistries.get(entities);
  if (!registry) {
    registry = new MemoryRegistry(entities);
    heldRegistries.set(entities, registry);
  }
  return registry;
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
  if (lookup.statements.length === 0) return [];
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
    statements: named,
    registryStatements: (withTerms) => [
      repository.pendingReferencesStatement(projectId),
      ...(withTerms
        ? [
            repository.termsStatement(projectId, HELD_REGISTRY_TERMS + 1),
            repository.allEntitiesStatement(projectId, HELD_REGISTRY_TERMS + 1),
          ]
        : []),
    ],
    decodeRegistry([pending, held, all]) {
      const terms = held ? (held.results as { term: string }[]).map((row) => row.term) : undefined;
      const few = terms !== undefined && terms.length <= HELD_REGISTRY_TERMS;
      // Each entity has at least one term, so a registry whose terms are few has as few entities.
      const entities = few && all ? registryEntities([all]) : undefined;
      return {
        pending: pendingReferences(pending),
        terms: few ? terms : undefined,
        ...(entities ? { entities } : {}),
      };
    },
    decodeHeld(registry) {
      return registry.entities ? resolveNamed(heldRegistry(registry.entities)) : undefined;
    },
    mayMatch(held) {
      if (named.length === 0) return false;
      if (held === undefined) return true;
      const known = new Set(held);
      return terms.some((t) => known.has(t)) || prefixes.some((p) => held.some((t) => t.startsWith(p)));
    },
    decode(results) {
      return resolveNamed(new MemoryRegistry(registryEntities(results.slice(0, named.length))));
    },
  };

  /** The text's mentions bound where seed 001 binds them, against the registry's candidates. */
  function resolveNamed(registry: MemoryRegistry): NamedEntities {
    const found = new Map<string, QueryEntity>();
    const names: Record<string, string[]> = {};
    for (const mention of mentions) {
      const scored = registry.candidates(mention).map((entity) => scoreCandidate(mention, entity, {}));
      const decision = decide(mention, scored, thresholds);
      if (decision.kind !== "bind" || found.has(decision.best.entity.id)) continue;
      const entity = decision.best.entity;
      names[entity.id] = [...new Set(entity.aliases.map((a) => a.norm))];
      found.set(entity.id, {
        id: entity.id,
        name: entity.canonicalName,
        mention: mention.text,
        pending: entity.status === "pending",
      });
    }
    return { entities: [...found.values()], names };
  }
}
