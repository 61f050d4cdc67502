/**
 * Seed 001's canonical entity registry: the vocabulary of entities, the mentions that name them, and
 * the decisions resolution takes. Plain data; the rules live in src/entities.
 */

/**
 * What an entity is. `other` holds names whose kind the words do not tell (a bare "Atlas Copco"): such
 * an entity still binds later mentions of the same name, of whatever type.
 */
export const ENTITY_TYPES = [
  "person",
  "project",
  "document",
  "system",
  "place",
  "role",
  "tool",
  "organization",
  "team",
  "other",
] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

/**
 * `active`: a canonical entity. `pending`: an ambiguous node awaiting review (seed 001: kept out of
 * high-authority constraints until resolved). `merged`: absorbed into `merged_into`, kept for audit.
 */
export const ENTITY_STATUSES = ["active", "pending", "merged"] as const;
export type EntityStatus = (typeof ENTITY_STATUSES)[number];

/** Where a mention was read. Tool output and identity are sources of their own (authority, provenance). */
export const MENTION_ORIGINS = ["fact_key", "fact_value", "message", "tool_output", "identity"] as const;
export type MentionOrigin = (typeof MENTION_ORIGINS)[number];

/** Identifying metadata a mention or an entity carries; equal values are strong evidence, unequal ones veto. */
export interface EntityMetadata {
  email?: string;
  email_domain?: string;
  handle?: string;
  path?: string;
  url?: string;
  document_id?: string;
  user_id?: string;
  /** Roles a person is said to hold ("Dana Whitfield, our CFO"), as role names. */
  roles?: string[];
}

/**
 * One reference to an entity in a text. `strong` mentions may create entities; `weak` ones (a bare
 * capitalised word, an acronym, words of a fact key) only bind to, or are reviewed against, entities
 * the registry already holds, so ordinary capitalised words never fill it.
 */
export interface Mention {
  /** The words as written. */
  text: string;
  /** The name the entity would be registered under ("Project Atlas", "chief financial officer"). */
  name: string;
  type: EntityType;
  strength: "strong" | "weak";
  /** Further names the same words imply ("CFO" for "chief financial officer", "Atlas" for "Project Atlas"). */
  aliases: string[];
  metadata: EntityMetadata;
  origin: MentionOrigin;
}

/** Seed 001's decision thresholds: at or above `bind` auto-merge; at or below `review` a new entity. */
export interface EntityThresholds {
  bind: number;
  review: number;
}

export const DEFAULT_ENTITY_THRESHOLDS: EntityThresholds = { bind: 0.95, review: 0.7 };

/** Review items: open until accepted (merged) or rejected (kept apart); closed when a merge made them moot. */
export const REVIEW_STATUSES = ["open", "accepted", "rejected", "closed"] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** What the history of an entity records. */
export const ENTITY_EVENTS = [
  "created",
  "alias_added",
  "pending",
  "merged_into",
  "absorbed",
  "split_from",
  "split",
  "review_accepted",
  "review_rejected",
  "retyped",
] as const;
export type EntityEvent = (typeof ENTITY_EVENTS)[number];

/** Where an alias came from: the entity's own name, a mention that was bound, words derived from it, a review or a merge. */
export type AliasSource = "canonical" | "observed" | "derived" | "metadata" | "review" | "merge";

export interface EntityAlias {
  alias: string;
  /** normalizeName(alias): what comparisons use. */
  norm: string;
  source: AliasSource;
}

/** Who first referred to an entity: seed 001's scope and provenance. */
export interface EntityProvenance {
  thread_id?: string;
  user_id?: string | null;
  fact_id?: string;
  /** For an entity a message or tool output first named: that message (of `thread_id`). */
  message_id?: string;
  origin?: string;
  extractor?: string;
  /** For a split: the entity it was split from. */
  split_from?: string;
}

/** A canonical entity as resolution sees it: its names, metadata, and the entities referred to beside it. */
export interface RegistryEntity {
  id: string;
  type: EntityType;
  status: EntityStatus;
  canonicalName: string;
  aliases: EntityAlias[];
  metadata: EntityMetadata;
  provenance: EntityProvenance;
  /** Entities that facts referring to this one also refer to (bounded): its graph neighbourhood. */
  neighbours: string[];
}
