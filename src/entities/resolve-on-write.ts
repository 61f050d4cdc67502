import type { BatchItem } from "drizzle-orm/batch";
import { DEFAULT_ENTITY_THRESHOLDS, type EntityThresholds, type Mention } from "../domain/entities";
import type { FactVersion } from "../domain/fact-version";
import type { Identity } from "../domain/identity";
import type { MentionExtractor } from "../ports/mention-extractor";
import { resolutionWrites } from "./entity-edits";
import { EntityRepository } from "./entity-repository";
import { factMentionInputs } from "./fact-mentions";
import { MemoryRegistry } from "./memory-registry";
import { identityMentions } from "./mentions/identity-mentions";
import { RuleMentionExtractor } from "./mentions/rule-mention-extractor";
import { type RegistryPlan, type ResolutionSource, resolveMentions } from "./resolution/resolve";
import { mentionLookup } from "./resolution/terms";
import { stableId, withStableIds } from "./stable-ids";

/** Who is writing: the thread, its project and identity. */
export interface Writer {
  projectId: string;
  threadId: string;
  identity: Identity;
}

/** A batch's resolution, ready to join the fact write's D1 batch. */
export interface ResolvedWrite {
  plan: RegistryPlan;
  /** The registry the batch was resolved against: what the slots of its facts are read with (keySlot). */
  registry: MemoryRegistry;
  /** The registry statements, keeping references only for the facts the write inserted. */
  writes(insertedFacts: ReadonlySet<string>): BatchItem<"sqlite">[];
}

/**
 * What one fact may add to the registry: names are short, so a longer "name" is a run of capitalised
 * text, not an entity; and a fact naming more than this many things is a document, indexed by its first.
 */
const MAX_NAME = 200;
const MAX_MENTIONS_PER_FACT = 50;

/**
 * At most `limit` of a text's mentions, strong ones first (at most `strongLimit` of them), names of
 * `MAX_NAME` characters at most.
 */
export function boundMentions(mentions: readonly Mention[], limit: number, strongLimit = limit): Mention[] {
  const kept = mentions.filter((m) => m.name.length <= MAX_NAME && m.text.length <= MAX_NAME);
  const strong = kept.filter((m) => m.strength === "strong").slice(0, strongLimit);
  return [...strong, ...kept.filter((m) => m.strength === "weak")].slice(0, limit);
}

/**
 * One candidate read for every mention of `sources` (and the extra exact `terms`), and their resolution
 * against what it found, with stable ids: the registry as resolution leaves it (the batch's new entities
 * and aliases in it too) and the plan of what it gains.
 */
export async function resolveSources(
  repository: EntityRepository,
  projectId: string,
  sources: readonly ResolutionSource[],
  thresholds: EntityThresholds,
  terms: readonly string[] = [],
): Promise<{ plan: RegistryPlan; registry: MemoryRegistry }> {
  const lookups = sources.flatMap((s) => s.mentions.map(mentionLookup));
  const candidates = await repository.candidates(
    projectId,
    [...new Set([...lookups.flatMap((l) => l.terms), ...terms])],
    [...new Set(lookups.flatMap((l) => l.prefixes))],
  );
  const registry = new MemoryRegistry(candidates);
  const stored = new Set(candidates.map((e) => e.id));
  const taken = (provisional: string) => stored.has(stableId(projectId, provisional));
  const plan = withStableIds(resolveMentions(sources, registry, thresholds, taken), projectId);
  return { plan, registry };
}

const NOTHING: ResolvedWrite = {
  plan: { created: [], aliases: [], retyped: [], metadata: [], reviews: [], links: [], outcomes: [] },
  registry: new MemoryRegistry(),
  writes: () => [],
};

/**
 * Resolution before memory writes (seed 001): the mentions of each fact's key and value, and of the
 * writer's identity, are resolved against the project's registry before the facts are written, and the
 * registry's changes and the facts' references are written in the facts' own batch. One D1 read for the
 * whole batch (every mention's candidate terms at once), pure resolution, no write of its own.
 *
 * A failure here never fails the fact write: it is logged and the facts are written without references
 * (they can be resolved again later); the registry is an index over the facts, not their owner.
 */
export class EntityResolver {
  constructor(private readonly extractor: MentionExtractor = new RuleMentionExtractor()) {}

  async resolve(
    database: D1Database,
    writer: Writer,
    rows: readonly FactVersion[],
    thresholds: EntityThresholds = DEFAULT_ENTITY_THRESHOLDS,
    extractor: MentionExtractor = this.extractor,
  ): Promise<ResolvedWrite> {
    try {
      return await this.plan(new EntityRepository(database), writer, rows, thresholds, extractor);
    } catch (error) {
      console.error(
        "entity resolution failed; facts written without entity references",
        writer.projectId,
        error,
      );
      return NOTHING;
    }
  }

  private async plan(
    repository: EntityRepository,
    writer: Writer,
    rows: readonly FactVersion[],
    thresholds: EntityThresholds,
    extractor: MentionExtractor,
  ): Promise<ResolvedWrite> {
    const inputs = rows.flatMap((row) => factMentionInputs(row.key, JSON.parse(row.valueJson)));
    const extracted = await extractor.extract(inputs);
    const context = { threadId: writer.threadId, userId: writer.identity.user_id };
    const sources: ResolutionSource[] = [
      {
        key: "identity",
        mentions: identityMentions(writer.identity),
        context,
        provenance: { thread_id: writer.threadId, user_id: writer.identity.user_id, origin: "identity" },
      },
      ...rows.map((row, i) => ({
        key: row.id,
        mentions: boundMentions(
          [...(extracted[2 * i] ?? []), ...(extracted[2 * i + 1] ?? [])],
          MAX_MENTIONS_PER_FACT,
        ),
        context: { ...context, authorityRank: row.authorityRank },
        provenance: {
          thread_id: writer.threadId,
          user_id: row.userId,
          fact_id: row.id,
          origin: "fact",
          extractor: extractor.name,
        },
      })),
    ];
    const { plan, registry } = await resolveSources(repository, writer.projectId, sources, thresholds);
    const at = new Date().toISOString();
    return {
      plan,
      registry,
      writes: (inserted) => resolutionWrites(repository.db, writer.projectId, plan, inserted, at),
    };
  }
}
