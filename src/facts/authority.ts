/**
 * The authority ladder decides whether one write may supersede another (seed 000, rule 3). Ranks run
 * from 1 (lowest) to 5 (highest). Each tier lists words that identify it inside a free-form title, so
 * "Senior Sales Manager" ranks as a manager and "CFO" as an executive.
 */
export interface AuthorityTier {
  rank: number;
  name: string;
  words: string[];
  /** Whole titles that would be misread word by word ("account executive" is a sales role). */
  phrases?: string[];
}

export const DEFAULT_AUTHORITY_LADDER: AuthorityTier[] = [
  {
    rank: 5,
    name: "policy",
    words: ["platform", "policy", "board", "system", "compliance", "legal", "regulator"],
  },
  {
    rank: 4,
    name: "executive",
    words: [
      "executive",
      "exec",
      "ceo",
      "cfo",
      "coo",
      "cto",
      "cio",
      "ciso",
      "cmo",
      "cpo",
      "chief",
      "president",
      "vp",
      "svp",
      "evp",
      "vice",
      "director",
      "head",
      "c-suite",
      "partner",
      "founder",
      "owner",
    ],
  },
  {
    rank: 3,
    name: "manager",
    words: ["manager", "lead", "supervisor", "principal", "admin", "administrator"],
  },
  {
    rank: 2,
    name: "employee",
    words: [
      "employee",
      "peer",
      "staff",
      "member",
      "engineer",
      "analyst",
      "specialist",
      "rep",
      "associate",
      "developer",
      "user",
      "subordinate",
      "coordinator",
      "consultant",
      "agent",
      "assistant",
    ],
    phrases: ["account executive", "executive assistant", "sales executive"],
  },
  {
    rank: 1,
    name: "guest",
    words: ["intern", "guest", "trainee", "visitor", "anonymous", "external", "contractor"],
  },
];

/** Unknown titles rank as an ordinary employee: trusted to state facts, not to override managers. */
export const DEFAULT_RANK = 2;

function words(title: string): string[] {
  return title
    .toLowerCase()
    .split(/[^a-z0-9+-]+/)
    .filter(Boolean);
}

/**
 * Ranks a title: an exact tier name, word or phrase wins; otherwise the highest tier that any word of
 * the title belongs to ("Senior Sales Manager" → manager); a title with no known word gets DEFAULT_RANK.
 */
export function authorityRank(
  title: string | undefined | null,
  ladder: AuthorityTier[] = DEFAULT_AUTHORITY_LADDER,
): number {
  if (!title) return DEFAULT_RANK;
  const normalized = title.trim().toLowerCase();
  let best = 0;
  for (const tier of ladder) {
    if (tier.name === normalized || tier.words.includes(normalized) || tier.phrases?.includes(normalized)) {
      return tier.rank;
    }
  }
  for (const tier of ladder) {
    if (tier.phrases?.some((phrase) => normalized.includes(phrase))) return tier.rank;
  }
  const titleWords = words(title).map((w) => w.replace(/\+$/, ""));
  for (const tier of ladder) {
    if (titleWords.some((w) => tier.words.includes(w))) best = Math.max(best, tier.rank);
  }
  return best || DEFAULT_RANK;
}
