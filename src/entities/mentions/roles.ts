import { SOFTWARE_NOUNS } from "./words";

/**
 * Role descriptions ("our CFO", "the head of finance", "the VP of Sales") and the one name each role is
 * registered under, so "CFO", "our cfo" and "the Chief Financial Officer" are the same role.
 */

/** Title abbreviations and what they stand for. */
export const ROLE_ABBREVIATIONS: Readonly<Record<string, string>> = {
  ceo: "chief executive officer",
  cfo: "chief financial officer",
  cto: "chief technology officer",
  coo: "chief operating officer",
  cio: "chief information officer",
  ciso: "chief information security officer",
  cmo: "chief marketing officer",
  cpo: "chief product officer",
  cro: "chief revenue officer",
  chro: "chief human resources officer",
  gc: "general counsel",
  vp: "vice president",
  svp: "senior vice president",
  evp: "executive vice president",
};

const ABBREVIATION = Object.keys(ROLE_ABBREVIATIONS).join("|");
/**
 * The area of a title: one word ("finance"), or two when the second is a word areas end in ("customer
 * success", "people operations"); anything else after the first word ends the title ("the head of
 * procurement disagrees").
 */
const AREA_ENDINGS =
  "success|marketing|operations|engineering|design|research|relations|resources|development|management|experience|security|strategy|affairs|analytics|data|finance|sales|support|product|people|legal|platform|infrastructure|partnerships|communications|policy|compliance|risk|growth|content|services";
const AREA = `[a-z]+(?: (?:${AREA_ENDINGS}))?`;
const TITLE_HEADS = "lead|manager|director|head|counsel|officer|architect|administrator|owner|coordinator";

/** The role forms, each matched after a determiner ("our", "the", …). Lower-cased text. */
export const ROLE_FORM = new RegExp(
  [
    `(?:${ABBREVIATION})(?: of ${AREA})?`,
    `chief (?:[a-z]+ ){1,3}officer`,
    `general counsel`,
    `head of ${AREA}`,
    `(?:vice president|director|senior vice president|executive vice president) of ${AREA}`,
    `[a-z]+ (?:${TITLE_HEADS})`,
  ].join("|"),
);

/** Units whose leader is called their head ("the department head"); "the html head" is markup. */
const HEADED_UNITS = new Set(["department", "division", "team", "unit"]);

/** Words that, before a title head, make an ordinary noun phrase rather than a role ("the same manager"). */
const NOT_AN_AREA = new Set([
  "same",
  "new",
  "old",
  "other",
  "previous",
  "next",
  "current",
  "former",
  "whole",
]);

/**
 * The canonical name of a role description, and its abbreviation when it has one:
 * "CFO" → chief financial officer (CFO); "VP of Sales" → vice president of sales (VP of Sales).
 * Undefined when the words are not a role after all ("the same manager").
 */
export function roleName(description: string): { name: string; abbreviation?: string } | undefined {
  const words = description.toLowerCase().replace(/\s+/g, " ").trim().split(" ");
  const first = words[0] as string;
  if (words.length === 2 && NOT_AN_AREA.has(first)) return undefined;
  // "The package manager", "the login manager": software that manages a thing, not a person's title.
  if (words.length === 2 && SOFTWARE_NOUNS.has(first)) return undefined;
  if (words.length === 2 && words[1] === "head" && !HEADED_UNITS.has(first)) return undefined;
  const expanded = ROLE_ABBREVIATIONS[first];
  if (!expanded) return { name: words.join(" ") };
  const rest = words.slice(1).join(" ");
  return {
    name: rest ? `${expanded} ${rest}` : expanded,
    abbreviation: rest ? `${first.toUpperCase()} ${rest}` : first.toUpperCase(),
  };
}
