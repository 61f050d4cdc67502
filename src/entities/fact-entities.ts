import { DEFAULT_ENTITY_THRESHOLDS, type EntityThresholds, type EntityType } from "../domain/entities";
import type { MentionInput } from "../ports/mention-extractor";
import { factMentionInputs } from "./fact-mentions";
import { MemoryRegistry } from "./memory-registry";
import { keyWords } from "./mentions/key-mentions";
import { ruleMentions } from "./mentions/rule-mention-extractor";
import type { PlacedMention } from "./mentions/text-mentions";
import type { RegistryEntity } from "./registry-entity";
import { decide } from "./resolution/decide";
import { scoreCandidate } from "./resolution/score";
import { canonicalAttribute } from "./slot-attribute";

/**
 * What a fact is about, for slot matching: the canonical entities its key and value name, and the
 * attribute its key states of them. "project_atlas_budget" and "atlas_budget" in a project whose
 * registry knows Project Atlas (alias "Atlas") both read { entityIds: [Project Atlas], attribute:
 * "budget" }: one entity and attribute, so one slot. A key that names no registered entity keeps its
 * words as the attribute ("discount_cap" → "discount_cap").
 *
 * Pure and read-only: mentions are found by the offline rules and bound only where seed 001 binds (at or
 * above `thresholds.bind`, unambiguous); nothing is created or reviewed, so it can run on any copy of the
 * registry, at write time or in a compile. Pending entities a mention binds to are listed apart
 * (`pendingIds`), never as part of a slot. (Seed 001 keeps them out of high-authority constraints until
 * they are resolved: a compile reads which stored facts refer to a pending entity, query-entities.ts, and
 * pack compiles those as guidance, not rules.)
 */
export interface FactEntities {
  /** Active canonical entities the fact names, sorted. */
  entityIds: string[];
  /** Pending (unreviewed) entities the fact names, sorted. */
  pendingIds: string[];
  /** The key's words that name no entity, joined by "_". */
  attribute: string;
}

/**
 * The slot a fact fills: its entities and its attribute in canonical form (slot-attribute.ts), as one
 * string. Two facts with the same slot are versions of one value, whatever keys they were filed under.
 */
export function slotOf(entities: FactEntities): string {
  return `${entities.entityIds.join(",")}|${canonicalAttribute(entities.attribute.split("_"))}`;
}

export function factEntities(
  fact: { key: string; value: unknown },
  registry: MemoryRegistry,
  thresholds: EntityThresholds = DEFAULT_ENTITY_THRESHOLDS,
): FactEntities {
  const [keyInput, valueInput] = factMentionInputs(fact.key, fact.value);
  const active = new Set<string>();
  const pending = new Set<string>();
  const keySpans: { start: number; end: number }[] = [];
  for (const input of [keyInput, valueInput]) {
    if (!input) continue;
    for (const { mention, entity } of boundIn(input, registry, thresholds)) {
      (entity.status === "pending" ? pending : active).add(entity.id);
      if (input.origin === "fact_key") keySpans.push({ start: mention.start, end: mention.end });
    }
  }
  const words = keyWords(fact.key);
  const named = new Set<number>();
  for (const span of keySpans) for (let i = span.start; i < span.end; i++) named.add(i);
  const rest = words.filter((_, i) => !named.has(i));
  return {
    entityIds: [...active].sort(),
    pendingIds: [...pending].sort(),
    attribute: (rest.length ? rest : words).join("_"),
  };
}

/** The mentions of one input that bind where seed 001 binds, each with its entity. */
function boundIn(
  input: MentionInput,
  registry: MemoryRegistry,
  thresholds: EntityThresholds,
): { mention: PlacedMention; entity: RegistryEntity }[] {
  return (ruleMentions(input) as PlacedMention[]).flatMap((mention) => {
    const scored = registry.candidates(mention).map((entity) => scoreCandidate(mention, entity, {}));
    const decision = decide(mention, scored, thresholds);
    return decision.kind === "bind" ? [{ mention, entity: decision.best.entity }] : [];
  });
}

/**
 * Kinds of entity that are what is acted on. People and roles act and decide; an untyped name may be
 * either ("Manager Max", "Senior Engineer" in a value), so it is no evidence of what a text is about.
 */
const THINGS: ReadonlySet<EntityType> = new Set([
  "project",
  "document",
  "system",
  "place",
  "tool",
  "organization",
  "team",
]);

/**
 * The active registered things a text names (not its people or roles, who act and decide, nor untyped
 * names): what an instruction is about, as canonical ids ("Give the Kestrel account 25% off" names
 * Project Kestrel once the registry knows it by "Kestrel"). Bound only where seed 001 binds; read-only,
 * like factEntities.
 */
export function namedThings(
  text: string,
  registry: MemoryRegistry,
  thresholds: EntityThresholds = DEFAULT_ENTITY_THRESHOLDS,
): string[] {
  const ids = boundIn({ text, origin: "fact_value" }, registry, thresholds)
    .filter(({ entity }) => entity.status === "active" && THINGS.has(entity.type))
    .map(({ entity }) => entity.id);
  return [...new Set(ids)].sort();
}

/**
 * namedThings over a registry given as its entities (a reader's held copy), one view per copy: the same
 * copy answers the same function, which remembers each text's answer, so a compile that settles the
 * same instructions again reads each once, and a new copy (the registry changed) is a new view.
 */
export function registryThings(
  entities: readonly RegistryEntity[],
  thresholds: EntityThresholds = DEFAULT_ENTITY_THRESHOLDS,
): (text: string) => readonly string[] {
  let views = thingViews.get(entities);
  if (!views) {
    views = new Map();
    thingViews.set(entities, views);
  }
  const key = `${thresholds.bind}/${thresholds.review}`;
  let view = views.get(key);
  if (!view) {
    const registry = new MemoryRegistry(entities);
    const answers = new Map<string, readonly string[]>();
    view = (text) => {
      let ids = answers.get(text);
      if (!ids) {
        ids = namedThings(text, registry, thresholds);
        if (answers.size >= THING_ANSWERS) answers.clear();
        answers.set(text, ids);
      }
      return ids;
    };
    views.set(key, view);
  }
  return view;
}

const thingViews = new WeakMap<readonly RegistryEntity[], Map<string, (text: string) => readonly string[]>>();
/** Texts remembered per view: a thread's attributed instructions, with room to spare. */
const THING_ANSWERS = 1000;

/**
 * The slot a key names, when it names a registered entity: "heron_budget" and "project_heron_budget"
 * both give Project Heron's budget. Only the key counts (what the value names is the value), and a key
 * that names no active entity gives null: its slot is its key alone.
 */
export function keySlot(
  key: string,
  registry: MemoryRegistry,
  thresholds: EntityThresholds = DEFAULT_ENTITY_THRESHOLDS,
): { slot: string; entityIds: string[] } | null {
  const entities = factEntities({ key, value: "" }, registry, thresholds);
  return entities.entityIds.length ? { slot: slotOf(entities), entityIds: entities.entityIds } : null;
}
