import type { Mention } from "../../domain/entities";
import { DESCRIPTOR_HEADS } from "./descriptors";
import { ROLE_ABBREVIATIONS, roleName } from "./roles";
import type { PlacedMention } from "./text-mentions";
import { ATTRIBUTE_WORDS } from "./words";

/**
 * Mentions in a fact key. Keys are identifiers ("project_atlas_budget", "cfoApprovalLimit"), so there
 * are no capitals to read: a key names an entity by a cue word ("project_atlas", "payments_team", a
 * title such as "cfo" or "head_of_finance"), and otherwise only by words the registry already knows,
 * which every run of up to four words offers as a weak mention (bound only on an exact name).
 */

/** "project_atlas_budget" and "projectAtlasBudget" both read "project atlas budget". */
export function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

const MAX_RUN = 4;
const CONNECTIVES = new Set(["of", "and", "the", "to", "for", "in", "on", "at", "by"]);

/** A mention over key words [from, to); offsets are word indexes into keyWords(key). */
function over(
  words: string[],
  from: number,
  to: number,
  fields: Omit<Mention, "text" | "origin">,
): PlacedMention {
  return { ...fields, text: words.slice(from, to).join(" "), origin: "fact_key", start: from, end: to };
}

function cued(words: string[]): PlacedMention[] {
  const found: PlacedMention[] = [];
  words.forEach((word, i) => {
    const next = words[i + 1];
    if (word === "project" && next && !ATTRIBUTE_WORDS.has(next)) {
      const core = next.replace(/^./, (c) => c.toUpperCase());
      found.push(
        over(words, i, i + 2, {
          name: `Project ${core}`,
          type: "project",
          strength: "strong",
          aliases: [core],
          metadata: {},
        }),
      );
    }
    const head = DESCRIPTOR_HEADS[next ?? ""];
    if (head && head.type === "team" && !ATTRIBUTE_WORDS.has(word) && word !== "project") {
      found.push(
        over(words, i, i + 2, {
          name: `${word.replace(/^./, (c) => c.toUpperCase())} ${head.as}`,
          type: "team",
          strength: "strong",
          aliases: [],
          metadata: {},
        }),
      );
    }
    if (ROLE_ABBREVIATIONS[word]) {
      const role = roleName(word) as { name: string; abbreviation?: string };
      found.push(
        over(words, i, i + 1, {
          name: role.name,
          type: "role",
          strength: "strong",
          aliases: role.abbreviation ? [role.abbreviation] : [],
          metadata: {},
        }),
      );
    }
    if (word === "head" && next === "of" && words[i + 2]) {
      found.push(
        over(words, i, i + 3, {
          name: `head of ${words[i + 2]}`,
          type: "role",
          strength: "strong",
          aliases: [],
          metadata: {},
        }),
      );
    }
  });
  return found;
}

/** The cued mentions of a key, then every run of its words as a weak mention. */
export function keyMentions(key: string): PlacedMention[] {
  const words = keyWords(key);
  const found = cued(words);
  for (let from = 0; from < words.length; from++) {
    for (let to = from + 1; to <= Math.min(words.length, from + MAX_RUN); to++) {
      const text = words.slice(from, to).join(" ");
      if (CONNECTIVES.has(words[from] as string) || CONNECTIVES.has(words[to - 1] as string)) continue;
      if (to - from === 1 && (text.length < 2 || ATTRIBUTE_WORDS.has(text))) continue;
      found.push(
        over(words, from, to, { name: text, type: "other", strength: "weak", aliases: [], metadata: {} }),
      );
    }
  }
  return found;
}
