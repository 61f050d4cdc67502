import type { EntityMetadata, EntityThresholds, EntityType, Mention } from "../../domain/entities";
import type { MemoryRegistry } from "../memory-registry";
import { normalizeName } from "../names";
import type { EntityAlias, EntityProvenance, RegistryEntity } from "../registry-entity";
import { type Decision, decide } from "./decide";
import { type Features, type MentionContext, type Scored, scoreCandidate } from "./score";
import { mentionNorms, metadataTerms } from "./terms";

/**
 * Resolution of a batch of texts' mentions against a registry, before anything is written (seed 001:
 * "entity resolution must happen before memory writes"). Pure: it returns what the registry gains, and
 * which entity each text refers to, and updates the in-memory registry as it goes, so a name new to
 * the registry and mentioned twice in one batch is one entity.
 *
 * Each text is resolved twice over: a first reading finds what its mentions bind to on their own, and
 * the second scores each mention with those as its co-mentioned neighbours (seed 001's
 * graph-neighbourhood consistency) and decides.
 */

/** One text's mentions, the key its references are recorded under (a fact id), and where it was read. */
export interface ResolutionSource {
  key: string;
  mentions: readonly Mention[];
  context: MentionContext;
  provenance: EntityProvenance;
}

export interface PlannedReview {
  id: string;
  /** The pending node. */
  entityId: string;
  /** The entity it may be. */
  candidateId: string;
  score: number;
  features: Features;
  /** A close second candidate, when there was one. */
  runnerUpId: string | null;
}

export interface MentionOutcome {
  source: string;
  mention: Mention;
  decision: Decision["kind"];
  entityId: string | null;
  score: number | null;
}

export interface RegistryPlan {
  created: RegistryEntity[];
  aliases: { entityId: string; alias: EntityAlias }[];
  /** Untyped entities a typed mention was bound to, and the type it gave them. */
  retyped: { entityId: string; type: EntityType }[];
  /** Identifying metadata a bound mention brought that its entity lacked. */
  metadata: { entityId: string; metadata: EntityMetadata }[];
  reviews: PlannedReview[];
  /** Which entity each source refers to, by the normal name it used. */
  links: { source: string; entityId: string; mention: string }[];
  outcomes: MentionOutcome[];
}

/** Ids of what a plan creates; the write path replaces these provisional ids with stable ones (ids.ts). */
export const provisionalId = (type: EntityType, norm: string) => `new:${type}:${norm}`;
export const provisionalReviewId = (entityId: string) => `review:${entityId}`;

/**
 * Whether a stored entity already holds a provisional id (the write path knows stored entities by the
 * stable ids their provisional ones became, stable-ids.ts). Only entities the registry was given count.
 */
export type Taken = (provisionalId: string) => boolean;

export function resolveMentions(
  sources: readonly ResolutionSource[],
  registry: MemoryRegistry,
  thresholds: EntityThresholds,
  taken: Taken = () => false,
): RegistryPlan {
  const plan: RegistryPlan = {
    created: [],
    aliases: [],
    retyped: [],
    metadata: [],
    reviews: [],
    links: [],
    outcomes: [],
  };
  for (const source of sources) {
    const alone = source.mentions.map((m) => decideOne(m, registry, source.context, thresholds));
    const coMentioned = alone.flatMap((d) => (d.kind === "bind" ? [d.best.entity.id] : []));
    for (const mention of source.mentions) {
      const context = { ...source.context, coMentioned };
      apply(plan, registry, source, mention, decideOne(mention, registry, context, thresholds), taken);
    }
  }
  return plan;
}

function decideOne(
  mention: Mention,
  registry: MemoryRegistry,
  context: MentionContext,
  thresholds: EntityThresholds,
) {
  const scored: Scored[] = registry
    .candidates(mention)
    .map((entity) => scoreCandidate(mention, entity, context));
  return decide(mention, scored, thresholds);
}

function aliasesOf(mention: Mention, source: EntityAlias["source"]): EntityAlias[] {
  const [name, ...rest] = mentionNorms(mention);
  const named = name ? [{ alias: mention.name, norm: name, source }] : [];
  const implied = rest.map((norm) => ({
    alias: mention.aliases.find((a) => normalizeName(a) === norm) ?? norm,
    norm,
    source: "derived" as const,
  }));
  const identifiers = [
    mention.metadata.email,
    mention.metadata.handle,
    mention.metadata.document_id,
    mention.metadata.path,
  ]
    .filter((v): v is string => Boolean(v))
    .map((v) => ({ alias: v, norm: normalizeName(v), source: "metadata" as const }));
  const seen = new Set<string>();
  return [...named, ...implied, ...identifiers].filter(
    (a) => a.norm && !seen.has(a.norm) && seen.add(a.norm),
  );
}

function apply(
  plan: RegistryPlan,
  registry: MemoryRegistry,
  source: ResolutionSource,
  mention: Mention,
  decision: Decision,
  taken: Taken,
): void {
  const norm = mentionNorms(mention)[0] ?? "";
  const outcome = (entityId: string | null, score: number | null) =>
    plan.outcomes.push({ source: source.key, mention, decision: decision.kind, entityId, score });
  if (decision.kind === "skip") return void outcome(null, null);
  if (decision.kind === "bind") {
    const entity = decision.best.entity;
    bind(plan, registry, entity, mention);
    plan.links.push({ source: source.key, entityId: entity.id, mention: norm });
    return void outcome(entity.id, decision.best.score);
  }
  const pending = decision.kind === "review";
  const type = pending && mention.type === "other" ? decision.best.entity.type : mention.type;
  const id = createdId(registry, mention, type, norm, taken);
  if (!registry.get(id)) {
    const entity: RegistryEntity = {
      id,
      type,
      status: pending ? "pending" : "active",
      canonicalName: mention.name,
      aliases: aliasesOf(mention, "canonical"),
      metadata: { ...mention.metadata },
      provenance: source.provenance,
      neighbours: [],
    };
    registry.add(entity);
    plan.created.push(entity);
    if (decision.kind === "review") {
      plan.reviews.push({
        id: provisionalReviewId(id),
        entityId: id,
        candidateId: decision.best.entity.id,
        score: decision.best.score,
        features: decision.best.features,
        runnerUpId: decision.runnerUp?.entity.id ?? null,
      });
    }
  }
  plan.links.push({ source: source.key, entityId: id, mention: norm });
  outcome(id, decision.kind === "review" ? decision.best.score : null);
}

/**
 * The provisional id of an entity a decision creates. A name's first entity is named by its type and name,
 * so two threads meeting the name at once make one entity. But a mention only gets here when it was not
 * bound: when an entity already holds that id (made earlier in the batch, or stored, as `taken` says), the
 * mention was kept apart from it (an unequal identifier vetoed the bind, or two namesakes made it a
 * question), and the plain id would land it on that entity, a false merge. Its id then says it stands
 * apart, with its own identifiers: still the same for every thread that meets the same words.
 */
function createdId(registry: MemoryRegistry, mention: Mention, type: EntityType, norm: string, taken: Taken) {
  const plain = provisionalId(type, norm);
  if (!registry.get(plain) && !taken(plain)) return plain;
  return [`${plain}|apart`, ...metadataTerms(mention.metadata).sort()].join("|");
}

/** Binding adds the mention's names as aliases, fills missing identifiers, and types an untyped entity. */
function bind(plan: RegistryPlan, registry: MemoryRegistry, entity: RegistryEntity, mention: Mention): void {
  for (const alias of aliasesOf(mention, "observed")) {
    if (entity.aliases.some((a) => a.norm === alias.norm)) continue;
    registry.addAlias(entity.id, alias);
    plan.aliases.push({ entityId: entity.id, alias });
  }
  const missing: EntityMetadata = {};
  for (const field of ["email", "email_domain", "handle", "document_id", "path", "url", "user_id"] as const) {
    const value = mention.metadata[field];
    if (value && !entity.metadata[field]) missing[field] = value;
  }
  if (Object.keys(missing).length) {
    Object.assign(entity.metadata, missing);
    plan.metadata.push({ entityId: entity.id, metadata: missing });
  }
  if (entity.type === "other" && mention.type !== "other" && mention.strength === "strong") {
    entity.type = mention.type;
    plan.retyped.push({ entityId: entity.id, type: mention.type });
  }
}
