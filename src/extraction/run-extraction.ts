import { holdsRedactionPlaceholder } from "../domain/redaction";
import { reconcile } from "../items/reconcile";
import type {
  CarriedScope,
  ExtractedFact,
  ExtractionMessage,
  Extractor,
  MessageEcho,
  MessageScope,
  RetiredValue,
  StateItem,
} from "../items/types";
import { cosine, type Embedder } from "../ports/embedder";
import type { ExtractResult, WatermarkPosition } from "./run-result";

/**
 * One extraction run over the messages past the watermark (seed 002): the extractor proposes, the
 * deterministic reconciler decides. No storage here; the thread object loads the batch and commits
 * the outcome, facts first, then items, log and watermark together.
 */
export interface ExtractionLimits {
  maxMessages: number;
  maxCandidates: number;
  timeoutMs: number;
}

export const DEFAULT_LIMITS: ExtractionLimits = { maxMessages: 200, maxCandidates: 25, timeoutMs: 15_000 };

export interface ExtractionRunInput {
  runId: string;
  now: string;
  messages: ExtractionMessage[];
  /** Every item of the thread, superseded ones included, so none is ever resurrected. */
  existing: StateItem[];
  existingFacts: ExistingFact[];
  /** Values that were superseded or replaced (facts, working-set and environment entries). */
  deadValues: string[];
  /** Values the client itself replaced or cleared, with when its replacement holds from. */
  clientReplaced?: ClientReplaced[];
  /** Extractor key → stored fact key, learned from earlier restatements. */
  slotAliases: Record<string, string>;
  openScope: CarriedScope | null;
  /** The values stated inside `openScope`, for a turn that adopts it (ExtractionInput.openScopeFacts). */
  openScopeFacts?: { key: string; value: string }[];
}

export interface ExtractionRunOutput {
  items: StateItem[];
  vectors: Map<string, number[]>;
  facts: ExtractedFact[];
  openScope: CarriedScope | null;
  /** Scopes a turn adopted: their turns become ordinary turns (their items are among `items`). */
  adoptedScopes: string[];
  through: WatermarkPosition;
  result: ExtractResult;
  slotAliases: Record<string, string>;
  messageScopes: MessageScope[];
  /** Which slot each message stated a value for, so a later change of that slot dates the message. */
  messageClaims: MessageClaim[];
  /** Values messages themselves said a slot no longer holds, so no other text revives them. */
  retiredValues: RetiredValue[];
}

/**
 * The run's item upserts, with every item of an adopted scope, from this run or an earlier one, made
 * an item of the conversation: what the scope said is the current state now.
 */
export function withAdopted(upserts: StateItem[], existing: StateItem[], adopted: string[]): StateItem[] {
  if (!adopted.length) return upserts;
  const inAdopted = (item: StateItem) => item.scope_id !== null && adopted.includes(item.scope_id);
  // "What if the deposit were $900?" taken up ("let's go with that") is a question answered.
  const adopt = (item: StateItem): StateItem =>
    inAdopted(item)
      ? {
          ...item,
          scope: "global",
          scope_id: null,
          status: item.type_tag === "question" && item.status === "open" ? "answered" : item.status,
        }
      : item;
  const upserted = new Set(upserts.map((item) => item.uid));
  const earlier = existing.filter((item) => inAdopted(item) && !upserted.has(item.uid));
  return [...upserts, ...earlier].map(adopt);
}

export interface MessageClaim {
  message_id: string;
  key: string;
  value: string;
}

/** A current fact of the project, as extraction weighs a message's facts against it. */
export interface ExistingFact {
  key: string;
  value: string;
  /** When it holds from; with `recorded`, a fact the client wrote itself rather than one extracted. */
  validFrom?: string;
  recorded?: boolean;
  /** Written by another thread of the project (ExtractionInput.existingFacts). */
  elsewhere?: boolean;
}

/** A value the client replaced (a fact version closed by one the client wrote), and since when. */
export interface ClientReplaced {
  value: string;
  /** The valid time of the client's replacing version: turns up to then cannot bring the value back. */
  from: string;
}

export class ExtractionTimeout extends Error {}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ExtractionTimeout(`extraction exceeded ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const normalize = (value: string) => value.toLowerCase().replace(/\s+/g, " ").trim();

/**
 * A fact the conversation merely restates is not new state. Restating a current fact under a second
 * key would outlive a later correction of the first; restating a value that was superseded or
 * replaced would resurrect it. Only explicit change language (the extractor's `supersedes`) may bring
 * a value back. A restatement of a current fact also teaches an alias (the extractor's key names the
 * stored fact's slot), so a later correction of that key lands on the stored fact.
 *
 * Nor does change language let a turn override what the client recorded itself: client intent outranks
 * extraction. A fact the client wrote for the turn's time or later is newer than anything the turn says
 * (extraction runs after the write, so without this an older turn's inference would supersede it; a
 * message and a fact sent together without timestamps share one time, and the client's fact wins). For
 * the same reason a value the client replaced or cleared ("[deleted]") is never filed again from a turn
 * no later than the replacement, under any key and whatever change language the turn uses.
 */
export function newFactsOnly(
  facts: ExtractedFact[],
  existing: ExistingFact[],
  deadValues: string[],
  knownAliases: Record<string, string>,
  clientReplaced: ClientReplaced[] = [],
): { facts: ExtractedFact[]; aliases: Record<string, string>; claims: MessageClaim[] } {
  const known = existing.map((f) => ({ key: f.key, value: normalize(f.value) }));
  const recorded = existing
    .filter((f) => f.recorded && f.validFrom)
    .map((f) => ({ key: f.key, value: normalize(f.value), from: Date.parse(f.validFrom as string) }));
  const alreadyRecorded = (key: string, at: string) => {
    const turn = Date.parse(at);
    return recorded.some((r) => r.key === key && r.from >= turn);
  };
  const replaced = clientReplaced
    .map((r) => ({ value: normalize(r.value), from: Date.parse(r.from) }))
    .filter((r) => r.value.length >= 4);
  const replacedByClient = (value: string, at: string) => {
    const turn = Date.parse(at);
    return replaced.some((r) => r.from >= turn && (r.value === value || r.value.includes(value)));
  };
  const dead = deadValues.map(normalize).filter((v) => v.length >= 4);
  // A slot the client redacted ("[REDACTED:password]", "[REDACTED]") stays hidden: no turn, older or
  // newer, may put a value back in it, and a placeholder is never a value of its own.
  const hidden = new Set(
    existing.filter((f) => f.recorded && holdsRedactionPlaceholder(f.value)).map((f) => f.key),
  );
  const aliases = { ...knownAliases };
  const resolve = (key: string | null) => (key && aliases[key] && aliases[key] !== key ? aliases[key] : key);
  const kept: ExtractedFact[] = [];
  const claims: MessageClaim[] = [];
  for (const original of facts) {
    const fact = {
      ...original,
      key: resolve(original.key) ?? original.key,
      supersedes: resolve(original.supersedes),
    };
    const value = normalize(fact.value);
    if (holdsRedactionPlaceholder(fact.value) || hidden.has(fact.key)) continue;
    if (
      fact.scope === "global" &&
      (alreadyRecorded(fact.key, fact.ts) || (fact.supersedes && alreadyRecorded(fact.supersedes, fact.ts)))
    ) {
      claims.push({ message_id: fact.ref, key: fact.key, value: fact.value });
      continue;
    }
    if (value.length >= 4 && replacedByClient(value, fact.ts)) continue;
    if (!fact.supersedes) {
      const holder = known.find((k) =>
        k.key === fact.key ? k.value === value : value.length >= 4 && k.value.includes(value),
      );
      if (holder) {
        if (holder.key !== original.key && fact.scope === "global") aliases[original.key] = holder.key;
        if (fact.scope === "global")
          claims.push({ message_id: fact.ref, key: holder.key, value: fact.value });
        continue;
      }
      if (dead.some((d) => d === value || (value.length >= 4 && (d.includes(value) || value.includes(d)))))
        continue;
    }
    kept.push(fact);
    if (fact.scope === "global") {
      claims.push({ message_id: fact.ref, key: fact.key, value: fact.value });
      const slot = known.find((k) => k.key === fact.key);
      if (slot) slot.value = value;
      else known.push({ key: fact.key, value });
    }
  }
  return { facts: kept, aliases, claims };
}

/** An assistant turn repeating a user turn's values states what that turn stated. */
export function echoClaims(claims: MessageClaim[], echoes: MessageEcho[]): MessageClaim[] {
  const out: MessageClaim[] = [];
  for (const echo of echoes) {
    for (const claim of claims) {
      if (claim.message_id === echo.of) out.push({ ...claim, message_id: echo.id });
    }
  }
  return out;
}

export async function runExtraction(
  input: ExtractionRunInput,
  ports: { extractor: Extractor; embedder: Embedder },
  limits: ExtractionLimits,
): Promise<ExtractionRunOutput | null> {
  const last = input.messages.at(-1);
  if (!last) return null;
  const started = Date.now();
  const through = { ts: last.ts, id: last.id };
  const base: ExtractResult = {
    id: input.runId,
    extractor: ports.extractor.name,
    started_at: input.now,
    duration_ms: 0,
    messages: input.messages.length,
    through,
    items_extracted: 0,
    items_merged: 0,
    items_conflicted: 0,
    items_superseded: 0,
    items_dropped: 0,
    facts_extracted: 0,
    skipped_reason: null,
  };
  // Screened turns are probes, not state: no extractor sees them, though the watermark passes them.
  const usable = input.messages.filter((m) => !m.screened);
  // An assistant turn sent on its own may still echo a value ("Sounds good, the tour is on May 9"),
  // and an echo must follow its value (issue 16 item 5): the offline rules read it, at no cost.
  const echoesOnly = ports.extractor.name === "rules" && usable.some((m) => m.role === "assistant");
  if (!usable.some((m) => m.role === "user") && !echoesOnly) {
    // Assistant-only batches rarely carry new decisions (seed 002): a model extractor is not asked
    // about them; the watermark still moves on. So does a batch whose only user turns were screened.
    return {
      items: [],
      vectors: new Map(),
      facts: [],
      openScope: input.openScope,
      adoptedScopes: [],
      through,
      slotAliases: input.slotAliases,
      messageScopes: [],
      messageClaims: [],
      retiredValues: [],
      result: {
        ...base,
        skipped_reason: input.messages.some((m) => m.role === "user") ? "screened_only" : "no_user_messages",
        duration_ms: Date.now() - started,
      },
    };
  }

  const output = await withTimeout(
    ports.extractor.extract({
      messages: usable,
      existing: input.existing.filter((i) => i.status !== "superseded"),
      existingFacts: input.existingFacts,
      openScope: input.openScope,
      openScopeFacts: input.openScopeFacts,
    }),
    limits.timeoutMs,
  );

  const live = input.existing.filter((i) => i.status !== "superseded");
  const texts = [...new Set([...output.items.map((i) => i.text), ...live.map((i) => i.text)])];
  const embedded = texts.length ? await withTimeout(ports.embedder.embed(texts), limits.timeoutMs) : [];
  const vectors = new Map(texts.map((text, i) => [text, embedded[i] ?? []]));
  const similarity = (a: string, b: string) => {
    const va = vectors.get(a);
    const vb = vectors.get(b);
    return va?.length && vb?.length ? cosine(va, vb) : 0;
  };

  const reconciled = reconcile({
    candidates: output.items,
    existing: input.existing,
    allowedRefs: new Set(usable.map((m) => m.id)),
    userMessageIds: new Set(usable.filter((m) => m.role === "user").map((m) => m.id)),
    messageTs: new Map(input.messages.map((m) => [m.id, m.ts])),
    similarity,
    now: input.now,
    maxCandidates: limits.maxCandidates,
    source: ports.extractor.name === "rules" ? "rules" : "llm",
  });
  const { facts, aliases, claims } = newFactsOnly(
    output.facts,
    input.existingFacts,
    input.deadValues,
    input.slotAliases,
    input.clientReplaced,
  );
  const echoed = [
    ...echoClaims(claims, output.messageEchoes ?? []),
    ...(output.echoedValues ?? []).map((e) => ({
      message_id: e.id,
      key: aliases[e.key] ?? e.key,
      value: e.value,
    })),
  ];
  const itemVectors = new Map(reconciled.upserts.map((item) => [item.uid, vectors.get(item.text) ?? []]));
  const adoptedScopes = output.adoptedScopes ?? [];
  return {
    items: withAdopted(reconciled.upserts, input.existing, adoptedScopes),
    vectors: itemVectors,
    facts,
    openScope: output.openScope,
    adoptedScopes,
    through,
    slotAliases: aliases,
    messageScopes: output.messageScopes ?? [],
    messageClaims: [...claims, ...echoed],
    retiredValues: (output.retiredValues ?? []).map((r) => ({ ...r, key: aliases[r.key] ?? r.key })),
    result: {
      ...base,
      ...reconciled.result,
      items_dropped: reconciled.result.items_dropped + output.dropped,
      facts_extracted: facts.length,
      duration_ms: Date.now() - started,
    },
  };
}
