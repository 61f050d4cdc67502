import type { Identity } from "../domain/identity";
import { type AuthorityTier, authorityRank } from "../facts/authority";

/**
 * Who is asking, reduced to what visibility depends on: a set of lower-cased role names and an
 * authority rank. Request roles can only narrow this set, never add to it.
 */
export interface Caller {
  /** The user asking: their own words are never hidden from them (gate.ts). */
  userId: string;
  roles: Set<string>;
  rank: number;
  clearances: Set<string>;
}

const lower = (s: string) => s.trim().toLowerCase();

export function callerFrom(identity: Identity, ladder: AuthorityTier[], requestRoles?: string[]): Caller {
  const granted = new Set(
    // Department is where someone sits, not what they are granted: only roles and the title count.
    [...(identity.roles ?? []), identity.authority ?? ""].map(lower).filter(Boolean),
  );
  const roles = requestRoles ? new Set(requestRoles.map(lower).filter((r) => granted.has(r))) : granted;
  const identityRank = authorityRank(identity.authority, ladder);
  const rank = requestRoles
    ? Math.min(identityRank, Math.max(0, ...[...roles].map((r) => authorityRank(r, ladder))))
    : identityRank;
  const clearances = new Set(
    (identity.permissions ?? [])
      .map(lower)
      .filter((p) => p.startsWith("clearance:"))
      .map((p) => p.slice("clearance:".length)),
  );
  return { userId: identity.user_id, roles, rank, clearances };
}

/** Minimum rank each classification needs when no role grants it explicitly. */
const CLASSIFICATION_RANK: Record<string, number> = {
  public: 0,
  restricted: 2,
  confidential: 3,
  highly_restricted: 4,
};

/** Words that name a group rather than narrow it: "Security team" means the security role. */
const GENERIC_WORDS = new Set(["team", "department", "dept", "group", "org", "staff", "members", "only"]);

function ladderRank(word: string, ladder: AuthorityTier[]): number | undefined {
  return ladder.find((tier) => tier.name === word || tier.words.includes(word))?.rank;
}

/**
 * A role pattern grants access when: "X+" and the caller ranks at least as high as X ("VP+"); it names
 * a ladder title and the caller ranks that high ("C-suite"); or some caller role or department contains
 * all its words ("HR", "Security team"). "leadership" additionally needs a manager or above.
 */
function roleMatches(pattern: string, caller: Caller, ladder: AuthorityTier[]): boolean {
  const p = lower(pattern);
  if (p.endsWith("+")) return caller.rank >= authorityRank(p.slice(0, -1), ladder);
  let words = p.split(/\s+/).filter((w) => !GENERIC_WORDS.has(w));
  const needsLeader = words.includes("leadership");
  words = words.filter((w) => w !== "leadership");
  if (needsLeader && caller.rank < 3) return false;
  if (words.length === 0) return needsLeader;
  const titleRank = words.length === 1 ? ladderRank(words[0] ?? "", ladder) : undefined;
  if (titleRank !== undefined && titleRank >= 3 && caller.rank >= titleRank) return true;
  for (const role of caller.roles) {
    const roleWords = role.split(/[^a-z0-9-]+/);
    if (role === words.join(" ") || words.every((w) => roleWords.includes(w))) return true;
  }
  return false;
}

export function isPermitted(
  object: { classification: string; allowRoles: string[]; denyRoles: string[] },
  caller: Caller,
  ladder: AuthorityTier[],
): { ok: true } | { ok: false; detail: string } {
  const denied = object.denyRoles.find((r) => roleMatches(r, caller, ladder) && !r.endsWith("+"));
  if (denied) return { ok: false, detail: `denied to role '${denied}'` };
  if (object.allowRoles.length > 0 && !object.allowRoles.some((r) => roleMatches(r, caller, ladder))) {
    return { ok: false, detail: `requires one of: ${object.allowRoles.join(", ")}` };
  }
  const needed = CLASSIFICATION_RANK[object.classification] ?? 4;
  if (
    caller.rank < needed &&
    !caller.clearances.has(object.classification) &&
    object.allowRoles.length === 0
  ) {
    return { ok: false, detail: `classification '${object.classification}' needs higher clearance` };
  }
  return { ok: true };
}
