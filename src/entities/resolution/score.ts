import type { EntityMetadata, EntityType, Mention } from "../../domain/entities";
import type { RegistryEntity } from "../registry-entity";
import { type LexicalKind, lexicalMatch } from "./lexical";
import { mentionNorms } from "./terms";

/**
 * Seed 001's SimilarityScore of a mention against one candidate entity:
 *
 *   score = lexical × type + metadata + neighbourhood + scope + authority, clamped to [0, 1]
 *
 * Lexical evidence (lexical.ts) is the base; the type factor scales it, since the same words naming
 * another kind of thing are another entity ("Atlas" the project and "Atlas" the office); the rest are
 * small, bounded adjustments, so that only an exact name, or a partial one with independent evidence,
 * reaches the 0.95 that binds. Identifying metadata is the exception in both directions: a different
 * email address, document id or handle vetoes a match whatever the name says.
 *
 * Weights (each documented where it is defined below):
 *   type        same or either untyped 1.0 (no evidence against); related kinds 0.85; otherwise 0.4
 *   metadata    each identifying field equal +0.10 (at most +0.15), any one different −0.50;
 *               email domain equal +0.03, different −0.10; a role in common +0.03
 *   neighbours  one co-mentioned entity among the candidate's neighbours +0.03, two or more +0.05
 *   scope       first referred to in the same thread +0.02, else by the same user +0.01
 *   authority   +0.01 per rank above an employee's (2), −0.01 for a guest; tool output −0.02
 */
export const TYPE_FACTOR = { same: 1, untyped: 1, related: 0.85, other: 0.4 } as const;

export const ADJUST = {
  identifyingEqual: 0.1,
  identifyingMax: 0.15,
  identifyingDiffers: -0.5,
  domainEqual: 0.03,
  domainDiffers: -0.1,
  roleShared: 0.03,
  oneNeighbour: 0.03,
  manyNeighbours: 0.05,
  sameThread: 0.02,
  sameUser: 0.01,
  perRank: 0.01,
  toolOutput: -0.02,
} as const;

/** Kinds that name the same sort of thing from two sides. */
const RELATED: ReadonlyArray<readonly [EntityType, EntityType]> = [
  ["system", "tool"],
  ["team", "organization"],
  ["document", "system"],
];

export function typeFactor(a: EntityType, b: EntityType): number {
  if (a === b) return TYPE_FACTOR.same;
  if (a === "other" || b === "other") return TYPE_FACTOR.untyped;
  if (RELATED.some(([x, y]) => (x === a && y === b) || (x === b && y === a))) return TYPE_FACTOR.related;
  return TYPE_FACTOR.other;
}

/** The lexical base of a mention that shares an identifier with the entity: with that +0.10, it binds. */
const IDENTIFIED = 0.85;

const IDENTIFYING = ["email", "handle", "document_id", "path", "url", "user_id"] as const;

export function metadataAdjustment(mention: EntityMetadata, entity: EntityMetadata): number {
  let equal = 0;
  for (const field of IDENTIFYING) {
    const a = mention[field]?.toLowerCase();
    const b = entity[field]?.toLowerCase();
    if (!a || !b) continue;
    if (a !== b) return ADJUST.identifyingDiffers;
    equal += ADJUST.identifyingEqual;
  }
  let total = Math.min(equal, ADJUST.identifyingMax);
  if (mention.email_domain && entity.email_domain) {
    total += mention.email_domain === entity.email_domain ? ADJUST.domainEqual : ADJUST.domainDiffers;
  }
  if (mention.roles?.some((r) => entity.roles?.includes(r))) total += ADJUST.roleShared;
  return total;
}

/** Where a mention was read and by whom: the scope, neighbourhood and authority of the evidence. */
export interface MentionContext {
  threadId?: string;
  userId?: string | null;
  /** The writer's rank on the tenant's authority ladder (1 guest … 5 policy); 2 when unknown. */
  authorityRank?: number;
  /** Entities the other mentions of the same text were resolved to. */
  coMentioned?: readonly string[];
}

export interface Features {
  lexical: number;
  lexical_kind: LexicalKind;
  alias: string;
  type: number;
  metadata: number;
  neighbourhood: number;
  scope: number;
  authority: number;
}

export interface Scored {
  entity: RegistryEntity;
  score: number;
  features: Features;
}

const clamp = (x: number) => Math.min(1, Math.max(0, x));
const round = (x: number) => Math.round(x * 1000) / 1000;

export function scoreCandidate(mention: Mention, entity: RegistryEntity, context: MentionContext): Scored {
  const lexical = lexicalMatch(mentionNorms(mention), mention.type, entity.aliases, entity.type);
  const type = typeFactor(mention.type, entity.type);
  const metadata = metadataAdjustment(mention.metadata, entity.metadata);
  const shared = (context.coMentioned ?? []).filter(
    (id) => id !== entity.id && entity.neighbours.includes(id),
  ).length;
  const neighbourhood = shared >= 2 ? ADJUST.manyNeighbours : shared === 1 ? ADJUST.oneNeighbour : 0;
  const provenance = entity.provenance;
  const scope =
    context.threadId && provenance.thread_id === context.threadId
      ? ADJUST.sameThread
      : context.userId && provenance.user_id === context.userId
        ? ADJUST.sameUser
        : 0;
  const rank = context.authorityRank ?? 2;
  const authority =
    Math.max(-ADJUST.perRank, Math.min(3 * ADJUST.perRank, (rank - 2) * ADJUST.perRank)) +
    (mention.origin === "tool_output" ? ADJUST.toolOutput : 0);
  // An equal identifier (email, document id, path, handle) names the entity whatever else the words say.
  const base = metadata >= ADJUST.identifyingEqual ? Math.max(lexical.score, IDENTIFIED) : lexical.score;
  const score = base === 0 ? 0 : clamp(base * type + metadata + neighbourhood + scope + authority);
  return {
    entity,
    score: round(score),
    features: {
      lexical: round(lexical.score),
      lexical_kind: lexical.kind,
      alias: lexical.alias,
      type,
      metadata: round(metadata),
      neighbourhood,
      scope,
      authority: round(authority),
    },
  };
}
