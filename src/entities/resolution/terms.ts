import type { EntityMetadata, Mention } from "../../domain/entities";
import { initialsOf, nameWords, normalizeName } from "../names";
import type { RegistryEntity } from "../registry-entity";

/**
 * Candidate generation (seed 001 step 2) as lookup terms: an entity is indexed under terms derived from
 * its names and metadata, and a mention looks up the terms derived the same way, so the candidates of
 * a mention are the entities sharing a term with it (D1 keeps the index as `entity_terms`).
 *
 *   `=name`   a whole normal name (exact canonical-name and alias matches)
 *   `w:word`  one word of a name (partial names: "Reed" for "Samantha Reed"; "sam" also as a prefix)
 *   `^abc`    initials ("AWS" and "Amazon Web Services" meet at `^aws`)
 *   `email:`, `handle:`, `path:`, `url:`, `doc:`, `user:`  identifying metadata
 */

const METADATA_TERMS = ["email", "handle", "path", "url", "document_id", "user_id"] as const;
const PREFIX: Record<(typeof METADATA_TERMS)[number], string> = {
  email: "email:",
  handle: "handle:",
  path: "path:",
  url: "url:",
  document_id: "doc:",
  user_id: "user:",
};

/** The shortest word a prefix lookup is made for ("sam" finds "samantha"; "al" finds nothing). */
export const MIN_PREFIX = 3;

export function nameTerms(norm: string): string[] {
  const terms = [`=${norm}`];
  for (const word of nameWords(norm)) if (word.length >= 2) terms.push(`w:${word}`);
  const initials = initialsOf(norm);
  if (initials) terms.push(`^${initials}`);
  return terms;
}

export function metadataTerms(metadata: EntityMetadata): string[] {
  const terms: string[] = [];
  for (const field of METADATA_TERMS) {
    const value = metadata[field];
    if (value) terms.push(`${PREFIX[field]}${value.toLowerCase()}`);
  }
  return terms;
}

/** Every term an entity is found under, with the alias norm each comes from ("" for metadata). */
export function entityTerms(
  entity: Pick<RegistryEntity, "aliases" | "metadata">,
): { term: string; norm: string }[] {
  // Per alias, not per entity: a word two aliases share is indexed under both, so either can move alone.
  const pairs = [
    ...entity.aliases.flatMap((alias) => nameTerms(alias.norm).map((term) => ({ term, norm: alias.norm }))),
    ...metadataTerms(entity.metadata).map((term) => ({ term, norm: "" })),
  ];
  const seen = new Set<string>();
  return pairs.filter(
    ({ term, norm }) => !seen.has(`${term}\u0000${norm}`) && seen.add(`${term}\u0000${norm}`),
  );
}

/** Every normal name a mention goes by: its name and the aliases its words imply. */
export function mentionNorms(mention: Mention): readonly string[] {
  return memo(norms, mention, () =>
    Object.freeze([...new Set([mention.name, ...mention.aliases].map(normalizeName).filter(Boolean))]),
  );
}

/**
 * A mention is read many times while a batch resolves (looked up, then scored against each candidate,
 * twice over): its names and lookup are worked out once per mention object. Mentions are never altered
 * once extracted, and what is kept is frozen.
 */
const norms = new WeakMap<Mention, readonly string[]>();
const lookups = new WeakMap<Mention, MentionLookup>();

function memo<T>(table: WeakMap<Mention, T>, mention: Mention, make: () => T): T {
  let value = table.get(mention);
  if (value === undefined) {
    value = make();
    table.set(mention, value);
  }
  return value;
}

/** What a mention looks up in the registry's terms. */
export interface MentionLookup {
  readonly terms: readonly string[];
  readonly prefixes: readonly string[];
}

/**
 * What a mention looks up: exact names always; words, initials and metadata for mentions that may be
 * partial or abbreviated; a word prefix for a lone first name. A weak mention from a fact key only ever
 * binds on an exact name, so it looks up nothing else.
 */
export function mentionLookup(mention: Mention): MentionLookup {
  return memo(lookups, mention, () => {
    const norms = mentionNorms(mention);
    if (mention.origin === "fact_key" && mention.strength === "weak") {
      return Object.freeze({ terms: Object.freeze(norms.map((n) => `=${n}`)), prefixes: Object.freeze([]) });
    }
    const terms = new Set([...norms.flatMap(nameTerms), ...metadataTerms(mention.metadata)]);
    const prefixes: string[] = [];
    const words = nameWords(norms[0] ?? "");
    if (words.length === 1 && (words[0] as string).length >= MIN_PREFIX && mention.type !== "role") {
      prefixes.push(`w:${words[0]}`);
    }
    return Object.freeze({ terms: Object.freeze([...terms]), prefixes: Object.freeze(prefixes) });
  });
}
