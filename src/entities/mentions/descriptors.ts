import type { EntityType } from "../../domain/entities";

/**
 * "The X team", "the prompt repo", "the Chicago office": a head noun that says what kind of thing the
 * words before it name. The head decides the type; its spelling is folded ("repository" is a repo).
 */
export const DESCRIPTOR_HEADS: Readonly<Record<string, { type: EntityType; as: string }>> = {
  team: { type: "team", as: "team" },
  squad: { type: "team", as: "squad" },
  group: { type: "team", as: "group" },
  department: { type: "team", as: "department" },
  dept: { type: "team", as: "department" },
  repo: { type: "system", as: "repo" },
  repository: { type: "system", as: "repo" },
  codebase: { type: "system", as: "codebase" },
  service: { type: "system", as: "service" },
  database: { type: "system", as: "database" },
  cluster: { type: "system", as: "cluster" },
  pipeline: { type: "system", as: "pipeline" },
  dashboard: { type: "system", as: "dashboard" },
  channel: { type: "system", as: "channel" },
  office: { type: "place", as: "office" },
  campus: { type: "place", as: "campus" },
  warehouse: { type: "place", as: "warehouse" },
  project: { type: "project", as: "project" },
  initiative: { type: "project", as: "initiative" },
  spec: { type: "document", as: "spec" },
  doc: { type: "document", as: "doc" },
  document: { type: "document", as: "doc" },
  wiki: { type: "document", as: "wiki" },
  handbook: { type: "document", as: "handbook" },
  runbook: { type: "document", as: "runbook" },
  playbook: { type: "document", as: "playbook" },
  report: { type: "document", as: "report" },
  tracker: { type: "tool", as: "tracker" },
  plugin: { type: "tool", as: "plugin" },
  sdk: { type: "tool", as: "sdk" },
  cli: { type: "tool", as: "cli" },
};

const HEADS = Object.keys(DESCRIPTOR_HEADS).join("|");
/** The heads in lower case or capitalised ("Chicago Office"), for the pattern that must see capitals. */
const CASED_HEADS = Object.keys(DESCRIPTOR_HEADS)
  .map((h) => `[${h[0]}${h[0]?.toUpperCase()}]${h.slice(1)}`)
  .join("|");

/** Words that link phrases, never part of a name: "the launch of Project Atlas" is no "launch of" project. */
// An article inside the words ("our community a service") means they are two phrases, not one.
const LINKING = "of|for|to|in|on|at|with|from|and|or|by|about|is|are|was|were|as|than|like|into|via|a|an";
/**
 * Determiners and words of place that open a second phrase ("the weather near the office" is the weather,
 * and an office): never inside one name. Matched as whole words only, so "after-hours" or "over-the-top"
 * can still qualify a head.
 */
const APART =
  "the|our|my|your|their|his|her|its|this|that|these|those|near|nearby|beside|behind|across|around|outside|inside|opposite|beyond|toward|towards|through|past|over|under|above|below|between";

/** With a determiner, any words qualify the head ("the payments team"); without one, capitalised words only. */
// Within one sentence: the qualifier's words are on the head's line and none ends one ("Submit Form.\nThe
// Project" is no project).
export const DESCRIPTOR_AFTER_DETERMINER = new RegExp(
  `\\b(?:the|our|my|your|their)\\s+((?:(?!(?:${LINKING})\\b)(?!(?:${APART})(?![\\w-]))[A-Za-z0-9](?:[\\w.-]*[\\w-])?[ \\t]+){1,3}?)(${HEADS})\\b`,
  "gi",
);
// Not the second half of a compound ("CI/CD pipeline" is no "CD pipeline").
export const DESCRIPTOR_CAPITALISED = new RegExp(
  `(?<![/.@-])\\b((?:[A-Z](?:[\\w.-]*[\\w-])?[ \\t]+){1,3}?)(${CASED_HEADS})\\b`,
  "g",
);

/** Qualifiers that describe rather than name ("the new repo", "the same team"). */
const EMPTY_QUALIFIERS = new Set([
  "new",
  "old",
  "same",
  "whole",
  "entire",
  "other",
  "first",
  "next",
  "last",
  "main",
  "current",
  "previous",
  "right",
  "wrong",
  "this",
  "that",
  // A determiner opening a sentence ("The Project is late") is capitalised, and no qualifier.
  "the",
  "a",
  "an",
  "our",
  "my",
  "your",
  "their",
  "his",
  "her",
  "its",
  "these",
  "those",
  "one",
  "only",
  "full",
  "final",
  "weekly",
  "daily",
  "monthly",
  // Adjectives that say which one or what it is like, in whatever conversation: never its name.
  "existing",
  "initial",
  "remote",
  "local",
  "personal",
  "virtual",
  "custom",
  "default",
  "primary",
  "secondary",
  "public",
  "private",
  "internal",
  "external",
  "separate",
  "relevant",
  "corresponding",
  "underlying",
  "original",
  "actual",
  "specific",
  "entire",
  "various",
  "several",
  "own",
]);

/** A participle in lower case ("the redesigned dashboard", "your specified channel") describes, not names. */
const PARTICIPLE = /^\p{Ll}{3,}ed$/u;

/** The name of a descriptor's entity, or undefined when its qualifier names nothing. */
export function descriptorName(
  qualifier: string,
  head: string,
): { name: string; type: EntityType; core: string; qualifier: string } | undefined {
  const spec = DESCRIPTOR_HEADS[head.toLowerCase()];
  if (!spec) return undefined;
  const described = qualifier
    .trim()
    .split(/\s+/)
    .filter((w) => !EMPTY_QUALIFIERS.has(w.toLowerCase()) && !PARTICIPLE.test(w));
  // Words in lower case before a name describe it: "your specified Slack channel" is the Slack channel.
  const named = described.findIndex((w) => /^\p{Lu}/u.test(w));
  const words = named > 0 ? described.slice(named) : described;
  if (words.length === 0) return undefined;
  const core = words.join(" ");
  if (spec.type === "project")
    return { name: `Project ${capitalise(core)}`, type: "project", core: capitalise(core), qualifier: core };
  // The head as written ("QH Group"), unless spelled another way ("repository" is a repo).
  const written = head.toLowerCase() === spec.as ? head : spec.as;
  return { name: `${capitalise(core)} ${written}`, type: spec.type, core, qualifier: core };
}

const capitalise = (text: string) => text.replace(/^\p{Ll}/u, (c) => c.toUpperCase());
