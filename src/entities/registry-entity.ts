import type { EntityMetadata, EntityStatus, EntityType } from "../domain/entities";
import { normalizeName } from "./names";

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

/**
 * An entity as first registered: its name as the canonical alias, further names, and its identifying
 * metadata (email, handle, document id, path) as aliases too, so that they are found like names.
 */
export function registryEntity(fields: {
  id: string;
  name: string;
  type: EntityType;
  status?: EntityStatus;
  aliases?: readonly string[];
  metadata?: EntityMetadata;
  provenance?: EntityProvenance;
}): RegistryEntity {
  const metadata = fields.metadata ?? {};
  const named: EntityAlias[] = [
    { alias: fields.name, norm: normalizeName(fields.name), source: "canonical" },
    ...(fields.aliases ?? []).map((alias) => ({
      alias,
      norm: normalizeName(alias),
      source: "derived" as const,
    })),
    ...[metadata.email, metadata.handle, metadata.document_id, metadata.path]
      .filter((v): v is string => Boolean(v))
      .map((alias) => ({ alias, norm: normalizeName(alias), source: "metadata" as const })),
  ];
  const seen = new Set<string>();
  return {
    id: fields.id,
    type: fields.type,
    status: fields.status ?? "active",
    canonicalName: fields.name,
    aliases: named.filter((a) => a.norm && !seen.has(a.norm) && seen.add(a.norm)),
    metadata: { ...metadata },
    provenance: fields.provenance ?? {},
    neighbours: [],
  };
}
