import type { EntityType } from "../domain/entities";
import { decideReviewWrites, isStaleEdit, type MergeDetail, mergeWrites, splitWrites } from "./entity-edits";
import type { EntityRepository } from "./entity-repository";
import type { EntityReviewRow, EntityRow } from "./entity-schema";
import { normalizeName } from "./names";
import { TYPE_FACTOR, typeFactor } from "./resolution/score";

/**
 * Merge, split and review decisions: read what the edit concerns, check it, and write it as one guarded
 * batch (entity-edits.ts). Each refusal says why and, for bad input, which field; the routes turn it
 * into problem+json.
 */
export class EditRefused extends Error {
  constructor(
    readonly reason: "invalid" | "not_found" | "conflict",
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

const conflict = (message: string) => new EditRefused("conflict", message);

async function runGuarded(repository: EntityRepository, statements: Parameters<EntityRepository["run"]>[0]) {
  try {
    await repository.run(statements);
  } catch (error) {
    if (isStaleEdit(error))
      throw conflict("The entity was changed by another request meanwhile; read it again.");
    throw error;
  }
}

/** The entity an id names now: itself, or what it was merged into (followed a few steps at most). */
export async function currentEntity(
  repository: EntityRepository,
  projectId: string,
  id: string,
): Promise<EntityRow | undefined> {
  let row = (await repository.byIds(projectId, [id]))[0];
  for (let hops = 0; row?.status === "merged" && row.mergedInto && hops < 8; hops++) {
    row = (await repository.byIds(projectId, [row.mergedInto]))[0];
  }
  return row;
}

/** Merges `absorbedId` into `survivor`: one entity from now on, under the survivor's id. */
export async function mergeEntities(
  repository: EntityRepository,
  survivor: EntityRow,
  absorbedId: string,
  extra: {
    reason?: string;
    review?: EntityReviewRow;
    decision?: string | null;
    /** Merge two entities typed apart (a person and a system): refused without it. */
    allowTypeChange?: boolean;
  } = {},
): Promise<void> {
  const projectId = survivor.projectId;
  if (absorbedId === survivor.id) throw new EditRefused("invalid", "must name another entity", "entity_id");
  const absorbed = (await repository.byIds(projectId, [absorbedId]))[0];
  if (!absorbed)
    throw new EditRefused("not_found", `No entity '${absorbedId}' in project '${projectId}'.`, "entity_id");
  for (const row of [survivor, absorbed]) {
    if (row.status === "merged")
      throw conflict(`Entity '${row.id}' was already merged into '${row.mergedInto}'.`);
  }
  // Entities of unrelated kinds are most likely two things of one name (a person and the system named
  // after them): a false merge costs more than a missed one, so it takes an explicit override. Related
  // kinds (a team and its organisation) and an untyped entity ('other', no kind yet) merge as resolution
  // would score them (resolution/score.ts, `typeFactor`).
  const [survivorType, absorbedType] = [survivor.entityType, absorbed.entityType];
  if (typeFactor(survivorType, absorbedType) === TYPE_FACTOR.other && !extra.allowTypeChange)
    throw new EditRefused(
      "conflict",
      `is a ${absorbedType} and entity '${survivor.id}' a ${survivorType}; pass allow_type_change: true to merge them`,
      "entity_id",
    );
  const [aliases, links, messages] = await Promise.all([
    repository.aliases(projectId, absorbed.id),
    repository.factLinks(projectId, absorbed.id, 1000),
    repository.messageCount(projectId, absorbed.id),
  ]);
  const at = new Date().toISOString();
  const now = survivorType === "other" ? absorbedType : survivorType;
  const detail: MergeDetail = {
    aliases: aliases.map((a) => a.alias),
    facts: links.length,
    messages,
    ...(extra.reason ? { reason: extra.reason } : {}),
    ...(extra.review ? { review: extra.review.id } : {}),
    ...(survivorType !== absorbedType
      ? { type_change: { survivor: survivorType, absorbed: absorbedType, now } }
      : {}),
  };
  const deciding = extra.review
    ? decideReviewWrites(repository.db, projectId, extra.review, "accepted", extra.decision ?? null, at)
    : [];
  await runGuarded(repository, [
    ...deciding,
    ...mergeWrites(repository.db, projectId, survivor, absorbed, detail, at),
  ]);
}

/** Moves some of an entity's aliases, and the facts that used them, to a new entity. */
export async function splitEntity(
  repository: EntityRepository,
  entity: EntityRow,
  request: { aliases: string[]; canonical_name?: string; entity_type?: EntityType },
): Promise<string> {
  if (entity.status === "merged")
    throw conflict(`Entity '${entity.id}' was merged into '${entity.mergedInto}'.`);
  const aliases = await repository.aliases(entity.projectId, entity.id);
  const norms = request.aliases.map(normalizeName);
  norms.forEach((norm, i) => {
    if (!aliases.some((a) => a.norm === norm)) {
      throw new EditRefused("invalid", `is not an alias of entity '${entity.id}'`, `aliases.${i}`);
    }
  });
  const remaining = aliases.filter((a) => !norms.includes(a.norm));
  if (remaining.length === 0)
    throw new EditRefused("invalid", "must leave the entity at least one alias", "aliases");
  const keeps = norms.includes(normalizeName(entity.canonicalName))
    ? (remaining[0]?.alias ?? entity.canonicalName)
    : entity.canonicalName;
  const moved = aliases.filter((a) => norms.includes(a.norm));
  const name = request.canonical_name ?? (moved[0]?.alias as string);
  // A name of the moved aliases goes with them; any other name must be no one's yet (this entity's
  // kept names included), or a later mention of it would find two entities of one name and bind to neither.
  const norm = normalizeName(name);
  if (!norms.includes(norm)) {
    const holders = await repository.holdersOf(entity.projectId, norm);
    if (holders.length > 0) {
      const whose = holders.includes(entity.id) ? `entity '${entity.id}' keeps it` : `'${holders[0]}' has it`;
      throw new EditRefused(
        "invalid",
        `must be one of the moved aliases or a name no entity goes by (${whose})`,
        "canonical_name",
      );
    }
  }
  const id = crypto.randomUUID();
  const created = {
    id,
    name,
    type: request.entity_type ?? entity.entityType,
    aliases: [{ alias: name, norm, source: "canonical" as const }],
  };
  const at = new Date().toISOString();
  await runGuarded(
    repository,
    splitWrites(
      repository.db,
      entity.projectId,
      { id: entity.id, canonicalName: keeps },
      created,
      [...new Set(norms)],
      at,
    ),
  );
  return id;
}

/**
 * Accepting a review merges its pending node into the candidate (or what the candidate has since been
 * merged into); rejecting it makes the pending node an entity of its own. Returns the entity the
 * reviewed mention resolves to now.
 */
export async function decideReview(
  repository: EntityRepository,
  review: EntityReviewRow,
  decision: "accept" | "reject",
  reason: string | null,
): Promise<string> {
  if (review.status !== "open") throw conflict(`Review '${review.id}' is already ${review.status}.`);
  if (decision === "reject") {
    const at = new Date().toISOString();
    await runGuarded(
      repository,
      decideReviewWrites(repository.db, review.projectId, review, "rejected", reason, at),
    );
    return review.entityId;
  }
  const candidate = await currentEntity(repository, review.projectId, review.candidateId);
  if (!candidate || candidate.status === "merged" || candidate.id === review.entityId)
    throw conflict(`The candidate of review '${review.id}' is gone.`);
  // Accepting is a person's answer about this very pair, whatever their types (the merge's history
  // records a change of type).
  await mergeEntities(repository, candidate, review.entityId, {
    allowTypeChange: true,
    review: { ...review, candidateId: candidate.id },
    decision: reason,
    ...(reason ? { reason } : {}),
  });
  return candidate.id;
}
