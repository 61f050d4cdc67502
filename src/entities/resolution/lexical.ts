import type { EntityType } from "../../domain/entities";
import { editDistance, initialsOf, nameWords } from "../names";

/**
 * The lexical half of seed 001's similarity score: how well one normal name matches another, and why.
 * The values are the evidence each kind of match is worth on its own, before type, scope, metadata,
 * neighbourhood and authority adjust it (score.ts):
 *
 *   exact     0.97  the same name once normalised ("ACME, Inc." and "Acme")
 *   initials  0.90  an abbreviation and its expansion ("AWS", "Amazon Web Services")
 *   given     0.80  a person's first name alone ("Samantha" for Samantha Reed), or a full name for
 *                   someone known by their first name
 *   surname   0.76  a person's last name alone
 *   nickname  0.74  a prefix of a person's first name ("Sam" for Samantha Reed), or a full name with
 *                   the first name shortened ("Sam Reed", "S. Reed")
 *   fuzzy     0.90 × (1 − distance / length), for a spelling within one edit per eight letters (not
 *             when the names differ only in words of three letters or fewer: "Building A", "Building C")
 *   overlap   0.50 × the Dice coefficient of the words ("Atlas Copco" and "Atlas": 0.33)
 *
 * None of the partial kinds reaches the 0.95 that binds without more evidence: a partial name alone is
 * at best a review. Partial person names apply only where either side is a person (or untyped), since
 * people are called by part of their name and projects or companies are not.
 */
export type LexicalKind =
  | "exact"
  | "initials"
  | "given"
  | "surname"
  | "nickname"
  | "fuzzy"
  | "overlap"
  | "none";

export const LEXICAL = {
  exact: 0.97,
  initials: 0.9,
  given: 0.8,
  surname: 0.76,
  nickname: 0.74,
  fuzzy: 0.9,
  overlap: 0.5,
} as const;

export interface LexicalMatch {
  score: number;
  kind: LexicalKind;
  /** The entity's name that matched. */
  alias: string;
}

const personish = (t: EntityType) => t === "person" || t === "other";

/** One first name shortens another: an initial of it, or a prefix of three letters or more. */
const shortens = (x: string, y: string) => {
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  return short !== long && (short.length === 1 || short.length >= 3) && long.startsWith(short);
};

/**
 * Names of as many words that differ only in short ones ("Building A" and "Building C", "CI pipeline" and
 * "CD pipeline"): a letter, a number or an acronym is what tells them apart, never a misspelling.
 */
function shortWordsApart(m: readonly string[], a: readonly string[]): boolean {
  if (m.length !== a.length || m.length < 2) return false;
  return m.every((w, i) => w === a[i] || Math.max(w.length, (a[i] as string).length) <= 3);
}

function pair(mention: string, alias: string, partialPerson: boolean): { score: number; kind: LexicalKind } {
  if (mention === alias) return { score: LEXICAL.exact, kind: "exact" };
  const m = nameWords(mention);
  const a = nameWords(alias);
  if (
    (m.length === 1 && initialsOf(alias) === mention && a.length > 1) ||
    (a.length === 1 && initialsOf(mention) === alias && m.length > 1)
  ) {
    return { score: LEXICAL.initials, kind: "initials" };
  }
  if (partialPerson) {
    if (m.length === 1 && a.length > 1) {
      if (a[0] === m[0]) return { score: LEXICAL.given, kind: "given" };
      if (a.at(-1) === m[0]) return { score: LEXICAL.surname, kind: "surname" };
      if ((m[0] as string).length >= 3 && (a[0] as string).startsWith(m[0] as string)) {
        return { score: LEXICAL.nickname, kind: "nickname" };
      }
    }
    if (a.length === 1 && m.length > 1 && m[0] === a[0]) return { score: LEXICAL.given, kind: "given" };
    // "Sam Reed" or "S. Reed" for Samantha Reed: the same surname, one first name shortening the other.
    if (m.length === 2 && a.length === 2 && m[1] === a[1] && shortens(m[0] as string, a[0] as string)) {
      return { score: LEXICAL.nickname, kind: "nickname" };
    }
  }
  const longest = Math.max(mention.length, alias.length);
  if (Math.min(mention.length, alias.length) >= 5 && !shortWordsApart(m, a)) {
    const allowed = Math.max(1, Math.floor(longest / 8));
    const distance = editDistance(mention, alias, allowed);
    if (distance <= allowed) return { score: LEXICAL.fuzzy * (1 - distance / longest), kind: "fuzzy" };
  }
  const shared = m.filter((w) => a.includes(w)).length;
  if (shared > 0) return { score: (LEXICAL.overlap * 2 * shared) / (m.length + a.length), kind: "overlap" };
  return { score: 0, kind: "none" };
}

/** The best match between any of a mention's names and any of an entity's. */
export function lexicalMatch(
  mentionNorms: readonly string[],
  mentionType: EntityType,
  aliases: readonly { norm: string }[],
  entityType: EntityType,
): LexicalMatch {
  const partialPerson =
    (mentionType === "person" && personish(entityType)) ||
    (entityType === "person" && personish(mentionType));
  let best: LexicalMatch = { score: 0, kind: "none", alias: "" };
  for (const m of mentionNorms) {
    for (const { norm } of aliases) {
      const found = pair(m, norm, partialPerson);
      if (found.score > best.score) best = { ...found, alias: norm };
    }
  }
  return best;
}
