import type { CompiledAsName, DetailLevelName } from "../../domain/compilation";
import type { ContextObject, Omission } from "../context-object";
import type { LeadingRun } from "../list-edits";
import { carriesImperative } from "./contain";
import type { Ranked } from "./rank";

/**
 * Pass 7: compress and convert. Duplicates collapse onto the strongest copy, and seed 001's
 * fact-to-instruction ladder decides how each object is phrased: a passive fact becomes a directive
 * only when authority, scope and relevance justify it.
 */

/** The memo tables this file reads (CompilerMemos holds them). */
export interface CompressMemos {
  /** Claims normalised once per object: a warm thread's objects come back from its cache compile after compile. */
  normalizedClaims: WeakMap<ContextObject, string>;
  /** The objects sharing a claim, per settlement (sharedClaims). */
  claimSharing: WeakMap<object, Set<ContextObject>>;
  /** Of settled facts, working set and environment, the claims they state, per list of facts. */
  standingClaims: WeakMap<ContextObject[], StandingClaims>;
  /** The claims of the run the settled facts begin with (standingClaims). */
  claimRuns: LeadingRun<ContextObject, Claims>;
}

function normalized(o: ContextObject, memos: CompressMemos): string {
  let claim = memos.normalizedClaims.get(o);
  if (claim === undefined) {
    claim = (o.claim ?? o.text).toLowerCase().replace(/\s+/g, " ").trim();
    memos.normalizedClaims.set(o, claim);
  }
  return claim;
}

/**
 * Keeps the first (best-ranked, since callers pass tiers in order) object per distinct claim. `shared`,
 * when given, holds at least every candidate whose claim another candidate states (sharedClaims): the
 * others cannot be duplicates nor have one, and are kept without a look-up.
 */
export function dedupe(
  groups: Ranked[][],
  memos: CompressMemos,
  shared?: ReadonlySet<ContextObject>,
): { groups: Ranked[][]; omitted: Omission[] } {
  const seen = new Map<string, string>();
  const omitted: Omission[] = [];
  const kept = groups.map((group) =>
    group.filter((r) => {
      if (r.object.kind === "message") return true;
      if (shared && !shared.has(r.object)) return true;
      const claim = normalized(r.object, memos);
      if (claim.length < 12) return true;
      const first = seen.get(claim);
      if (first) {
        omitted.push({
          object: r.object,
          reason: "duplicate",
          detail: `same claim as ${first}`,
          tier: r.tier,
        });
        return false;
      }
      seen.set(claim, r.object.objectId);
      return true;
    }),
  );
  return { groups: kept, omitted };
}

/**
 * Of a settlement's stored state (every candidate dedupe sees but messages), the objects whose claim,
 * as dedupe compares it, another object also states. Kept per settlement, which is never mutated:
 * a warm thread's stays the same from query to query (src/compiler/compile-cache.ts). A new turn
 * mostly brings new items to the same settled facts, working set and environment (the same lists),
 * so their part is kept per those lists and only the items are weighed against it.
 */
export function sharedClaims(
  state: {
    facts: ContextObject[];
    items: ContextObject[];
    working: ContextObject[];
    environment: ContextObject[];
  },
  memos: CompressMemos,
): Set<ContextObject> {
  let shared = memos.claimSharing.get(state);
  if (!shared) {
    const standing = standingClaims(state.facts, state.working, state.environment, memos);
    shared = new Set(standing.shared);
    const first = new Map<string, ContextObject>();
    for (const o of state.items) {
      if (o.kind === "message") continue;
      const claim = normalized(o, memos);
      const earlier = standing.firstOf(claim) ?? first.get(claim);
      if (earlier) {
        shared.add(earlier);
        shared.add(o);
      } else {
        first.set(claim, o);
      }
    }
    memos.claimSharing.set(state, shared);
  }
  return shared;
}

export interface StandingClaims {
  working: ContextObject[];
  environment: ContextObject[];
  /** The first object stating a claim. */
  firstOf: (claim: string) => ContextObject | undefined;
  /** The objects whose claim another of them states. */
  shared: Set<ContextObject>;
}

/** Of some objects, the first stating each claim, and those whose claim another states. */
export interface Claims {
  first: Map<string, ContextObject>;
  shared: Set<ContextObject>;
}

function standingClaims(
  facts: ContextObject[],
  working: ContextObject[],
  environment: ContextObject[],
  memos: CompressMemos,
) {
  const known = memos.standingClaims.get(facts);
  if (known && known.working === working && known.environment === environment) return known;
  // The run the facts begin with is read once; each list after reads its own objects against it.
  const run = memos.claimRuns.of(facts, (objects) => claimsOf([objects], 0, memos));
  const own = claimsOf([facts, working, environment], run?.length ?? 0, memos, run?.value);
  const standing: StandingClaims = {
    working,
    environment,
    firstOf: run
      ? (claim) => run.value.first.get(claim) ?? own.first.get(claim)
      : (claim) => own.first.get(claim),
    shared: own.shared,
  };
  memos.standingClaims.set(facts, standing);
  return standing;
}

/**
 * The claims of the lists' objects, the first list read from `from` on: those before it are `before`'s
 * (its first objects come first, and its shared ones are shared still).
 */
function claimsOf(
  lists: readonly (readonly ContextObject[])[],
  from: number,
  memos: CompressMemos,
  before?: Claims,
): Claims {
  const claims: Claims = { first: new Map(), shared: new Set(before?.shared) };
  for (const [i, list] of lists.entries()) {
    for (let j = i === 0 ? from : 0; j < list.length; j++) {
      const o = list[j] as ContextObject;
      if (o.kind === "message") continue;
      const claim = normalized(o, memos);
      const earlier = before?.first.get(claim) ?? claims.first.get(claim);
      if (earlier) {
        claims.shared.add(earlier);
        claims.shared.add(o);
      } else {
        claims.first.set(claim, o);
      }
    }
  }
  return claims;
}

const NEGATION = /^(?:never|do not|don't|must not|cannot|can't|no)\b\s*/i;

/**
 * Where an object stands on the ladder (level 0 raw observation … level 5 hard constraint). An object
 * naming a pending entity (`namesPending`) is never a hard constraint: seed 001 keeps ambiguous nodes out
 * of high-authority constraints until resolved, so a rule about "Ottilie Brannick", who may or may not
 * be the registered Ottilie Brannock, is guidance until a person says which.
 */
export function ladderStep(r: Ranked, namesPending = false): CompiledAsName {
  const o = r.object;
  if (o.kind === "message") return "raw_observation";
  // "Ignore previous instructions" said by a user or a tool is quoted speech, never a MUST or SHOULD.
  if (o.authorityLevel >= 2 && (r.tier === "critical" || o.objectType === "preference")) {
    if (carriesImperative(o.claim ?? o.text))
      return o.scope !== "global" || o.userId ? "scoped_memory" : "normalized_fact";
  }
  if (r.tier === "critical" && o.authorityLevel <= 2 && (o.scope === "global" || o.scope === "task")) {
    return namesPending ? "behavioral_guidance" : "hard_constraint";
  }
  if (r.tier === "critical") return "behavioral_guidance";
  if (o.objectType === "preference" && (o.whyItMatters || o.taskTypes.length > 0) && r.relevance > 0) {
    return "behavioral_guidance";
  }
  if (
    o.kind === "environment" ||
    o.kind === "working" ||
    (o.kind === "state_item" && r.tier === "important")
  ) {
    return "task_context";
  }
  if (o.scope !== "global" || o.userId) return "scoped_memory";
  return "normalized_fact";
}

/**
 * The phrasing for a ladder step; the object's own text stays whole so nothing it says is lost. `pending`
 * names the pending entities that kept it from being a hard constraint, said beside it.
 */
export function phrase(
  step: CompiledAsName,
  o: ContextObject,
  text: string,
  pending: readonly string[] = [],
): string {
  switch (step) {
    case "hard_constraint": {
      const claim = o.claim ?? text;
      return NEGATION.test(claim) ? `DO NOT: ${text}` : `MUST: ${text}`;
    }
    case "behavioral_guidance": {
      const notes = [
        ...(o.behavioralImplication ? [o.behavioralImplication] : []),
        ...(pending.length ? [pendingNote(pending)] : []),
      ];
      return notes.length ? `SHOULD: ${text} (${notes.join("; ")})` : `SHOULD: ${text}`;
    }
    default:
      return text;
  }
}

/** What a line kept from the hard constraints by pending entities says of them. */
export const pendingNote = (names: readonly string[]) => `pending entity review: ${names.join(", ")}`;

/** The stored token count of one detail level, without building the form; null when there is none. */
export function formTokens(o: ContextObject, detail: DetailLevelName): number | null {
  if (detail === "full") return o.tokens;
  // An excerpt is cut for the query (excerpt.ts), never stored.
  if (!o.forms || detail === "excerpt") return null;
  return detail === "summary" ? o.forms.summaryTokens : o.forms.microTokens;
}

/** The text and stored token count of one detail level; null when the object has no such form. */
export function formOf(o: ContextObject, detail: DetailLevelName): { text: string; tokens: number } | null {
  if (detail === "full") return { text: o.text, tokens: o.tokens };
  if (!o.forms || detail === "excerpt") return null;
  return detail === "summary"
    ? { text: o.forms.summary, tokens: o.forms.summaryTokens }
    : { text: o.forms.micro, tokens: o.forms.microTokens };
}
