import type { Mention } from "../domain/entities";
import type { EntityAlias, RegistryEntity } from "./registry-entity";
import { entityTerms, mentionLookup } from "./resolution/terms";

/**
 * A registry held in memory: the entities a resolution may compare mentions with, indexed by the same
 * terms D1 keeps in `entity_terms`. The write path fills one with the candidates D1 found for a batch;
 * the benchmark and tests fill one by hand. Merged entities are not candidates.
 */
export class MemoryRegistry {
  private readonly byId = new Map<string, RegistryEntity>();
  private readonly byTerm = new Map<string, Set<string>>();
  /**
   * The terms by their first HEAD characters, each list in byTerm's order: a prefix look-up reads the
   * terms that can start with it, not every term of the registry.
   */
  private readonly byHead = new Map<string, string[]>();

  constructor(entities: Iterable<RegistryEntity> = []) {
    for (const entity of entities) this.add(entity);
  }

  get(id: string): RegistryEntity | undefined {
    return this.byId.get(id);
  }

  all(): RegistryEntity[] {
    return [...this.byId.values()];
  }

  add(entity: RegistryEntity): void {
    this.byId.set(entity.id, entity);
    this.index(entity);
  }

  addAlias(id: string, alias: EntityAlias): void {
    const entity = this.byId.get(id);
    if (!entity || entity.aliases.some((a) => a.norm === alias.norm)) return;
    entity.aliases.push(alias);
    this.index(entity);
  }

  /** The entities sharing a lookup term with the mention (seed 001's candidate set). */
  candidates(mention: Mention): RegistryEntity[] {
    const { terms, prefixes } = mentionLookup(mention);
    const ids = new Set<string>();
    for (const term of terms) for (const id of this.byTerm.get(term) ?? []) ids.add(id);
    const [prefix] = prefixes;
    if (prefixes.length === 1 && prefix !== undefined && prefix.length >= HEAD) {
      // A mention has one prefix at most: its bucket holds the terms it can begin, in byTerm's order.
      for (const term of this.byHead.get(prefix.slice(0, HEAD)) ?? []) {
        if (term.startsWith(prefix)) for (const id of this.byTerm.get(term) ?? []) ids.add(id);
      }
    } else if (prefixes.length) {
      for (const [term, holders] of this.byTerm) {
        if (prefixes.some((p) => term.startsWith(p))) for (const id of holders) ids.add(id);
      }
    }
    return [...ids].map((id) => this.byId.get(id) as RegistryEntity).filter((e) => e.status !== "merged");
  }

  private index(entity: RegistryEntity): void {
    for (const { term } of entityTerms(entity)) {
      const holders = this.byTerm.get(term);
      if (holders) holders.add(entity.id);
      else {
        this.byTerm.set(term, new Set([entity.id]));
        const head = term.slice(0, HEAD);
        const list = this.byHead.get(head);
        if (list) list.push(term);
        else this.byHead.set(head, [term]);
      }
    }
  }
}

/** Characters a prefix look-up is bucketed by: "w:" and a word's first three (terms.ts MIN_PREFIX). */
const HEAD = 5;
