import type {
  EntityAlias,
  EntityMetadata,
  EntityProvenance,
  EntityStatus,
  EntityType,
  RegistryEntity,
} from "../domain/entities";
import { normalizeName } from "./names";

export type { AliasSource, EntityAlias, EntityProvenance, RegistryEntity } from "../domain/entities";

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
