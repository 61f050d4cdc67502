import type { ContextObject, Omission } from "../context-object";
import type { ClaimIndex } from "../hygiene/claim-index";
import type { ClaimsAgainst } from "../hygiene/claims-against";
import type { DeadBasis, LiveClaimTexts } from "../hygiene/dead-basis";
import type { DeadClaim } from "../hygiene/dead-claim";
import type { LiveClaims } from "../hygiene/live-claims";
import type { SlotIndex } from "../hygiene/outdated";
import type { Rewordable } from "../hygiene/reworded";
import type { Succession } from "../hygiene/succession";
import type { Document } from "../lexical";
import { LeadingRun } from "../list-edits";
import type { Claims, CompressMemos, StandingClaims } from "../passes/compress";
import type { EmitFormatMemos } from "../passes/emit-format";
import type { PassageIndex } from "../passes/excerpt";
import type { ClockBounds, GateMemos } from "../passes/gate";
import type { GroupParts, PrefixParts } from "../passes/group-parts";
import type { PackMemos, UndatedForm } from "../passes/pack";
import type { RankMemos, TrustSplit } from "../passes/rank";
import type { Redacted, SafeguardMemos } from "../passes/safeguard";
import type { InstructionMemos, RunInstructions } from "../passes/temporal/instruction-authority";
import type { TemporalMemos } from "../passes/temporal/memos";
import type { FactSettlement } from "../passes/temporal/settlement";
import { BoundedMap, MEMO_LIMITS } from "./memo-tables";

/**
 * Memos keyed by a text alone, each a pure function of it (figures, terms, parsed instants, bullets,
 * days, redactions). Nothing in them belongs to a thread, so the host may share one instance between
 * every thread it compiles for (the thread objects of an isolate do: src/thread/compilation.ts); each
 * table is bounded (MEMO_LIMITS) and emptied when full.
 */
export class TextMemos {
  readonly figures = new BoundedMap<string, readonly string[]>(MEMO_LIMITS.figures);
  readonly asideFreeFigures = new BoundedMap<string, readonly string[]>(MEMO_LIMITS.asideFreeFigures);
  readonly documents = new BoundedMap<string, Document>(MEMO_LIMITS.documents);
  readonly instants = new BoundedMap<string, number>(MEMO_LIMITS.instants);
  readonly bullets = new BoundedMap<string, string>(MEMO_LIMITS.bullets);
  readonly days = new BoundedMap<string, string>(MEMO_LIMITS.days);
  /** One table per clearance (neither, PII, secrets, both). */
  readonly redacted = [0, 1, 2, 3].map(() => new BoundedMap<string, Redacted>(MEMO_LIMITS.redacted));
}

/**
 * Every memo the compiler keeps, in one object. The passes are pure functions of their input, and most
 * of a warm thread's work is the same from one compile to the next: the same objects, the same lists
 * (CompileCache hands back last compile's list while it holds the same objects), the same lines. What
 * was worked out is remembered here, keyed by the object or list it was worked out from (never changed
 * once made, so an entry stays true as long as its key lives) or by the text itself. An entry only
 * spares work: a compile gives the same envelope with fresh memos as with warm ones.
 *
 * CompileCache holds one per thread and starts a fresh one when the thread's origin changes (begin);
 * compileContext called without a cache makes one for that compile. The text-keyed tables come from a
 * TextMemos the cache is given, which may be shared between threads, or a fresh one. The passes receive it explicitly,
 * each typed by the slice it reads (RankMemos, TemporalMemos …, declared beside the code that reads
 * them). Tables keyed by identity are WeakMaps, let go with their keys; tables keyed by text are bounded
 * (MEMO_LIMITS, src/compiler/memo-tables.ts) and emptied when full.
 */
export class CompilerMemos
  implements TemporalMemos, RankMemos, PackMemos, CompressMemos, GateMemos, SafeguardMemos, EmitFormatMemos
{
  // Hygiene: dead claims and what texts say of them (src/compiler/hygiene/).
  readonly lowerClaims = new WeakMap<ContextObject, string>();
  readonly figures: TextMemos["figures"];
  readonly asideFreeFigures: TextMemos["asideFreeFigures"];
  readonly deadFigures = new WeakMap<DeadClaim[], Set<string>>();
  readonly ownFigures = new WeakMap<DeadClaim[], Map<string, readonly string[]>>();
  readonly claimIndexes = new WeakMap<DeadClaim[], ClaimIndex>();
  readonly liveClaims = new WeakMap<ContextObject[], LiveClaims>();
  lastLive: LiveClaims | undefined = undefined;
  readonly knownTexts = new WeakMap<DeadClaim[], Set<string>>();
  readonly mergedLists = new WeakMap<DeadClaim[], BoundedMap<string, DeadClaim[]>>();
  readonly successions = new WeakMap<DeadClaim[], Succession>();
  readonly notedLists = new WeakSet<DeadClaim[]>();
  readonly restatedVerdicts = new WeakMap<DeadClaim[], BoundedMap<string, DeadClaim | null>>();
  readonly quotedVerdicts = new WeakMap<DeadClaim[], WeakMap<ContextObject, DeadClaim | null>>();
  readonly replacedFigures = new WeakMap<DeadClaim[], Map<string, DeadClaim[]>>();
  readonly rewordables = new WeakMap<DeadClaim[], Map<string, Rewordable[]>>();
  readonly maskedTexts = new WeakMap<DeadClaim[], BoundedMap<string, string>>();
  readonly claimsAgainst = new WeakMap<DeadClaim[], ClaimsAgainst>();
  readonly slotIndexes = new WeakMap<ContextObject[], SlotIndex>();
  readonly slotIndexRuns = new LeadingRun<ContextObject, Map<string, ContextObject>>();
  readonly liveRuns = new LeadingRun<ContextObject, LiveClaimTexts>();

  // Pass 4, temporal validity (src/compiler/passes/temporal/).
  readonly itemVerdicts = new WeakMap<DeadClaim[], WeakMap<ContextObject, DeadClaim | null>>();
  readonly deadBases = new WeakMap<FactSettlement, { earlier: Omission[]; basis: DeadBasis }>();
  readonly messageVerdicts = new WeakMap<DeadClaim[], WeakMap<ContextObject, Omission | null>>();
  readonly instructions: InstructionMemos["instructions"] = new WeakMap();
  ladderKey: string | undefined = undefined;
  readonly instructionRuns = new LeadingRun<ContextObject, RunInstructions>();

  // Pass 3, gates.
  readonly clockBounds = new WeakMap<readonly ContextObject[], ClockBounds>();

  // Pass 5, ranking, and lexical relevance.
  readonly documents: TextMemos["documents"];
  readonly instants: TextMemos["instants"];
  readonly partsByList = new WeakMap<readonly ContextObject[], GroupParts>();
  readonly recentParts: { objects: readonly ContextObject[]; parts: GroupParts }[] = [];
  readonly prefixes: PrefixParts[] = [];
  readonly trustSplits = new WeakMap<readonly ContextObject[], TrustSplit>();
  readonly trustRuns = new LeadingRun<ContextObject, TrustSplit>();

  // Pass 7, compression and packing.
  readonly normalizedClaims = new WeakMap<ContextObject, string>();
  readonly claimSharing = new WeakMap<object, Set<ContextObject>>();
  readonly standingClaims = new WeakMap<ContextObject[], StandingClaims>();
  readonly claimRuns = new LeadingRun<ContextObject, Claims>();
  readonly bullets: TextMemos["bullets"];
  readonly undatedForms = new WeakMap<(text: string) => number, BoundedMap<string, UndatedForm>>();
  readonly days: TextMemos["days"];
  readonly passageIndexes = new WeakMap<ContextObject, PassageIndex | null>();

  // Pass 8, redaction: one table per clearance (neither, PII, secrets, both).
  readonly redacted: TextMemos["redacted"];

  // Pass 10, emit.
  lastPrefix: { text: string; hash: string } | undefined = undefined;

  /** Records found deeply frozen (CompileCache): they and everything they hold can never change again. */
  readonly frozenRecords = new WeakSet<object>();

  constructor(readonly text: TextMemos = new TextMemos()) {
    this.figures = text.figures;
    this.asideFreeFigures = text.asideFreeFigures;
    this.documents = text.documents;
    this.instants = text.instants;
    this.bullets = text.bullets;
    this.days = text.days;
    this.redacted = text.redacted;
  }
}
