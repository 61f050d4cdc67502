import type { FactVersion } from "../../domain/fact-version";
import { type LineCounter, memoizedCounter } from "../../tokens/segments";
import type { ContextObject, Omission } from "../context-object";
import type { DeadClaim } from "../hygiene/dead-claim";
import { DeadListKeeper } from "../hygiene/dead-list-keeper";
import { LeadingRun } from "../list-edits";
import { factObject, itemObject, layerObject, messageObject, type Origin } from "../passes/normalize";
import { entityIdsOf } from "../passes/resolve-entities";
import { FactsMemo } from "../passes/temporal/facts-memo";
import type { Admitted, FactSettlement, StateSettlement } from "../passes/temporal/settlement";
import { deeplyFrozen, sameData, snapshot } from "../plain-data";
import type { LayerEntry, MessageRecord, StatedClaims, StateItemRecord } from "../types";
import { CompilerMemos, TextMemos } from "./memos";

/**
 * Incremental compilation for a warm thread. Most of a compile's per-object work depends on the object
 * alone: normalising a stored record into a Context Object (JSON parsing, marker reading) and resolving
 * its entities; and most of the envelope's lines were emitted, and counted, last time. A CompileCache
 * remembers both between compiles of one thread, with pass 4's settlement, which does not depend on
 * the query. It is owned by the thread's Durable Object and handed
 * to compileContext, so the passes stay pure functions of their input: an entry is reused only while
 * the record it was made from is unchanged, field for field, so a cached compile gives the same
 * envelope as a cold one. Bounded: a full table of objects lets go of the oldest this compile did not use,
 * and every other table is emptied when it outgrows its limit.
 */

/**
 * Normalised objects kept per kind. A compile hands in some 1,500 fact candidates at most (a whole
 * project's 500 newest among them) and 500 items, plus layers and messages; a large project's candidates
 * change with every question, so the table of facts fills over a thread's life and keeps its most
 * recently used objects (see `evict`).
 */
export const OBJECT_LIMIT = 10_000;
/**
 * Message objects kept: fewer. A long thread's new question retrieves turns of its own (some hundred),
 * which the next questions seldom retrieve again, while the tail comes back every compile; ten thousand
 * of them only kept the isolate's heap large, and its full collections long. At 100,000 messages, with
 * this cap, compiles ran p50 32 → 25 ms, p95 55 → 40, faster in 61 of 80 new questions and slower in 18
 * (`npm run bench:paired -- --messages 100000 --rounds 80`). The same cap on every table made compiles
 * at 10,000 facts slower (faster in 28 of 100, slower in 43), so the other tables keep OBJECT_LIMIT.
 */
export const MESSAGE_OBJECT_LIMIT = 4_000;
const LIMITS: Record<Kind, number> = {
  fact: OBJECT_LIMIT,
  working: OBJECT_LIMIT,
  environment: OBJECT_LIMIT,
  item: OBJECT_LIMIT,
  message: MESSAGE_OBJECT_LIMIT,
};
/** Distinct lines and blocks whose token counts are kept. */
const COUNT_LIMIT = 50_000;

interface Entry<T> {
  record: T;
  object: ContextObject;
  /** The record object last handed in for this id; when deeply frozen and handed in again, it is equal. */
  given: T;
  /** The compile (CompileCache.compiles) that last handed it in. */
  used: number;
}

type Kind = "fact" | "working" | "environment" | "item" | "message";

type StateLists = Omit<Admitted, "messages" | "episodes">;

/** What pass 4 settled of stored state last time, and the input it settled. */
interface Settled {
  admitted: StateLists;
  earlier: Omission[];
  /** The registry view the settlement named things by (compared by identity). */
  registry: unknown;
  stated: Map<string, StatedClaims>;
  result: StateSettlement;
}

/** The settlement of facts, working set and environment, with what it was made from. */
interface FactsSettled {
  admitted: Omit<StateLists, "items">;
  earlier: Omission[];
  registry: unknown;
  result: FactSettlement;
}

export class CompileCache {
  private readonly objects: Record<Kind, Map<string, Entry<unknown>>> = {
    fact: new Map(),
    working: new Map(),
    environment: new Map(),
    item: new Map(),
    message: new Map(),
  };
  private settled?: Settled;
  private factsSettled?: FactsSettled;
  /** What the last settlement of facts worked out, for the next one to redo only what changed. */
  private factsMemo = new FactsMemo();
  private deadLists = new DeadListKeeper();
  /** The dead list of the last settlement of stored state. */
  private settledDead = new DeadListKeeper();
  private verdicts = freshVerdicts("");
  private readonly lists: Partial<Record<Kind, ContextObject[]>> = {};
  /** The records each kind's list was last resolved from, and whether all were deeply frozen. */
  private readonly sources: Partial<Record<Kind, { records: readonly unknown[]; frozen: boolean }>> = {};
  private readonly counts = new Map<string, number>();
  private origin = "";
  private memoTables: CompilerMemos;
  private counter?: { count: (text: string) => number; memoized: LineCounter };
  /** Compiles begun: how recently an object was handed in. */
  private compiles = 0;
  /** Per kind, the run of held records its lists begin with (resolvedList). */
  private runs = freshRuns();
  /** Bumped whenever a table lets go of an entry or replaces one: held runs then resolve afresh. */
  private changes = 0;
  /** Tables found full of this compile's own objects, and the compile that found them so. */
  private readonly overfull = new Map<Map<string, Entry<unknown>>, number>();

  /** `text`: memos keyed by text alone, which the caller may share between threads (see TextMemos). */
  constructor(private readonly text: TextMemos = new TextMemos()) {
    this.memoTables = new CompilerMemos(text);
  }

  /** Forgets everything when the thread's origin (tenant, project, authority ladder) changed. */
  begin(origin: Origin): void {
    this.compiles++;
    const key = [origin.tenantId, origin.projectId, origin.threadId, origin.topRank, origin.user.id].join(
      "\u0000",
    );
    if (key !== this.origin) {
      for (const table of Object.values(this.objects)) table.clear();
      this.settled = undefined;
      this.factsSettled = undefined;
      this.factsMemo = new FactsMemo();
      this.deadLists = new DeadListKeeper();
      this.settledDead = new DeadListKeeper();
      this.verdicts = freshVerdicts("");
      this.memoTables = new CompilerMemos(this.text);
      for (const kind of Object.keys(this.lists) as Kind[]) delete this.lists[kind];
      for (const kind of Object.keys(this.sources) as Kind[]) delete this.sources[kind];
      this.runs = freshRuns();
      this.changes++;
      this.origin = key;
    }
  }

  /**
   * The memos of this thread's compiles (src/compiler/memos.ts): kept while the origin stays the same,
   * so that a warm thread's lists, objects and lines find what was worked out against them last time.
   */
  get memos(): CompilerMemos {
    return this.memoTables;
  }

  /** `count`, remembering the count of each line-aligned piece of text (src/tokens/segments.ts). */
  countWith(count: (text: string) => number): LineCounter {
    if (this.counter?.count !== count) {
      this.counts.clear();
      this.counter = { count, memoized: memoizedCounter(count, this.counts, COUNT_LIMIT) };
    }
    return this.counter.memoized;
  }

  fact(row: FactVersion, origin: Origin): ContextObject {
    return this.object("fact", row.id, row, origin, sameFactVersion, factObject);
  }

  layer(entry: LayerEntry, kind: "working" | "environment", origin: Origin): ContextObject {
    return this.object(kind, entry.id, entry, origin, sameLayerVersion, (e, o) => layerObject(e, kind, o));
  }

  item(record: StateItemRecord, origin: Origin): ContextObject {
    return this.object("item", record.item.uid, record, origin, sameData, itemObject);
  }

  /** Messages are transcript: they are normalised but not entity-resolved (as compile always did). */
  message(message: MessageRecord, origin: Origin): ContextObject {
    return this.object("message", message.id, message, origin, sameData, messageObject, false);
  }

  /**
   * Pass 4's settlement of stored state does not depend on the query (src/compiler/passes/temporal/,
   * settleFacts then settleItems): when the same objects (the cached ones, by identity) were admitted,
   * the same ones gated, and the items' source messages stated the same claims, last compile's
   * settlement stands; when only items or their claims changed, the facts' part does. Only the
   * transcript part, which retrieval changes with every query, is settled again. Callers must not
   * mutate the result. `registry` is what the settlement reads things' names by (the entity registry's
   * view, instruction-authority.ts): another one settles again.
   */
  temporalState(
    admitted: StateLists,
    earlier: Omission[],
    sourceClaims: Map<string, StatedClaims>,
    settle: { facts: (memo: FactsMemo) => FactSettlement; items: (core: FactSettlement) => StateSettlement },
    registry?: unknown,
  ): StateSettlement {
    const last = this.settled;
    if (
      last &&
      last.registry === registry &&
      STATE_LISTS.every((list) => sameItems(last.admitted[list], admitted[list])) &&
      sameOmissions(last.earlier, earlier) &&
      sameStated(last.stated, sourceClaims)
    ) {
      return last.result;
    }
    // A new turn mostly adds items: the facts' part then stands, and with it the lists later passes
    // keep their memos by.
    const core = this.factsPart(admitted, earlier, settle.facts, registry);
    let result = settle.items(core);
    // A changed fact rarely changes which claims are dead: last compile's equal list keeps the memos
    // later passes hold per list (withRetired's merged lists, message verdicts, masked texts).
    const dead = this.settledDead.same(result.dead, this.memoTables);
    if (dead !== result.dead) result = { ...result, dead };
    this.settled = {
      admitted: {
        facts: admitted.facts,
        working: admitted.working,
        environment: admitted.environment,
        items: admitted.items,
      },
      earlier: [...earlier],
      registry,
      stated: new Map([...sourceClaims].map(([id, claims]) => [id, snapshot(claims)])),
      result,
    };
    return result;
  }

  private factsPart(
    admitted: StateLists,
    earlier: Omission[],
    settle: (memo: FactsMemo) => FactSettlement,
    registry: unknown,
  ): FactSettlement {
    const last = this.factsSettled;
    if (
      last &&
      last.registry === registry &&
      FACT_LISTS.every((list) => sameItems(last.admitted[list], admitted[list])) &&
      sameOmissions(last.earlier, earlier)
    ) {
      return last.result;
    }
    // The memo hands back last settlement's dead list when it holds the same claims.
    const result = settle(this.factsMemo);
    this.factsSettled = {
      admitted: { facts: admitted.facts, working: admitted.working, environment: admitted.environment },
      earlier: [...earlier],
      registry,
      result,
    };
    return result;
  }

  /**
   * The dead claims of this compile, or last compile's list when it holds the same claims: masked texts
   * are memoised per list (src/compiler/hygiene/mask.ts), so a list that stays the same keeps them.
   */
  sameDead(dead: DeadClaim[]): DeadClaim[] {
    return this.deadLists.same(dead, this.memoTables);
  }

  /**
   * Clock-independent gate verdicts (standingGate), as the omission each makes, by object, for one
   * caller: the thread, task, the caller's roles, rank and clearances, and the authority ladder, as
   * `callerKey` spells them. A different caller starts a fresh table.
   */
  standingVerdicts(callerKey: string): WeakMap<ContextObject, Omission | null> {
    return this.standingFor(callerKey).table;
  }

  /**
   * A list's standing verdicts as a whole, for the same caller: the objects no standing gate holds,
   * and the omissions of those it holds, in list order. Kept per list (lists from `sameList` come
   * back while their objects do); `split` is called when this list was not split for this caller.
   */
  standingSplit(
    callerKey: string,
    list: ContextObject[],
    split: (objects: readonly ContextObject[]) => StandingSplit,
    name = "",
  ): StandingSplit {
    const verdicts = this.standingFor(callerKey);
    let found = verdicts.lists.get(list);
    if (!found) {
      // The run of held objects lists of this name begin with is split once for this caller; a new
      // list is split after it (the same verdicts in the same order).
      let runs = verdicts.runs.get(name);
      if (!runs) {
        runs = new LeadingRun();
        verdicts.runs.set(name, runs);
      }
      const run = runs.of(list, split);
      if (run) {
        const rest = split(list.slice(run.length));
        found = {
          open: run.value.open.concat(rest.open),
          held: run.value.held.concat(rest.held),
          start: run.value.open,
        };
      } else {
        found = split(list);
      }
      verdicts.lists.set(list, found);
    }
    return found;
  }

  /**
   * A kind's list resolved from these records: last compile's list, with no per-record lookup, when
   * they are the very record objects it was resolved from, in order, all deeply frozen (so unchanged);
   * else each record through `resolve` (the per-record cache), kept by `sameList`.
   */
  resolvedList<T>(kind: Kind, records: readonly T[], resolve: (record: T) => ContextObject): ContextObject[] {
    const source = this.sources[kind];
    const list = this.lists[kind];
    if (list && source?.frozen && sameItems(source.records, records)) return list;
    // A large project's records change with every question but begin with the same held records: that
    // run's objects stand while its records, deeply frozen, are the very ones it was resolved from and
    // the table has let go of none of its entries (see HeldRun); only the records after it are resolved.
    const run = this.runs[kind].of(records, (held) => this.heldRun(kind, held as readonly T[], resolve));
    const held = run?.value.usable ? run.value : undefined;
    let objects: ContextObject[];
    if (held && held.changes === this.changes) {
      for (const entry of held.entries) entry.used = this.compiles;
      objects = held.objects.slice();
      for (let i = held.objects.length; i < records.length; i++) objects.push(resolve(records[i] as T));
    } else {
      objects = records.map(resolve);
      if (held) this.readRun(kind, held, objects.slice(0, held.objects.length));
    }
    const resolved = this.sameList(kind, objects);
    // The records `object` found deeply frozen as it resolved them (the run's were, or it would not
    // stand). One it did not walk (a fresh copy of a record it holds, found equal) is not walked here:
    // a large project's question hands in a hundred such rows every compile, in a list never handed in
    // again, and walking them cost a tenth of the compile. Should that list come again, it is resolved
    // record by record, which walks them.
    const frozen = this.memoTables.frozenRecords;
    let allFrozen = true;
    for (let i = held ? held.objects.length : 0; allFrozen && i < records.length; i++) {
      allFrozen = frozen.has(records[i] as object);
    }
    this.sources[kind] = { records: [...records], frozen: allFrozen };
    return resolved;
  }

  /** The run of held records a kind's lists begin with, resolved (HeldRun); unusable unless all are deeply frozen. */
  private heldRun<T>(kind: Kind, records: readonly T[], resolve: (record: T) => ContextObject): HeldRun {
    const found = this.memoTables.frozenRecords;
    const run: HeldRun = { usable: false, objects: [], entries: [], changes: -1 };
    if (!records.every((record) => deeplyFrozen(record, found))) return run;
    run.usable = true;
    this.readRun(kind, run, records.map(resolve));
    return run;
  }

  /** A run's objects as just resolved, with the table entries holding them now. */
  private readRun(kind: Kind, run: HeldRun, objects: ContextObject[]): void {
    const table = this.objects[kind];
    const entries: Entry<unknown>[] = [];
    for (const object of objects) {
      const entry = table.get(object.objectId);
      // An object the table does not hold (one compile handed in more than it keeps): resolve each time.
      if (entry?.object !== object) {
        run.usable = false;
        return;
      }
      entries.push(entry);
    }
    run.objects = objects;
    run.entries = entries;
    run.changes = this.changes;
  }

  /**
   * Last compile's list of this kind when it holds the same objects in the same order, else `list`:
   * a warm thread's unchanged state then keeps one list, which per-list memos (gate splits, lexical
   * indexes, pass 4's settlement) recognise by identity. Callers must not mutate the lists.
   */
  sameList(kind: Kind, list: ContextObject[]): ContextObject[] {
    const last = this.lists[kind];
    if (last && sameItems(last, list)) return last;
    this.lists[kind] = list;
    return list;
  }

  private standingFor(callerKey: string) {
    if (this.verdicts.key !== callerKey) {
      this.verdicts = freshVerdicts(callerKey);
    }
    return this.verdicts;
  }

  /** How many normalised objects are held (each table is bounded by its kind's limit, LIMITS). */
  get size(): number {
    return Object.values(this.objects).reduce((n, table) => n + table.size, 0);
  }

  private object<T>(
    kind: Kind,
    id: string,
    record: T,
    origin: Origin,
    same: (cached: T, record: T) => boolean,
    /** Makes a new object from the record (never one held elsewhere: it is completed in place). */
    make: (record: T, origin: Origin) => ContextObject,
    resolve = true,
  ) {
    const table = this.objects[kind];
    const hit = table.get(id) as Entry<T> | undefined;
    if (hit) {
      hit.used = this.compiles;
      // A thread object hands in the same frozen records while they stay unchanged (its held copies).
      if (hit.given === record && deeplyFrozen(record, this.memoTables.frozenRecords)) return hit.object;
      if (same(hit.record, record)) {
        hit.given = record;
        return hit.object;
      }
    }
    const object = make(record, origin);
    // Pass 2 (resolveEntity) on the object just made, which nothing else holds yet: its entity ids are
    // set in place rather than on a copy of all its fields, one object less per new record.
    if (resolve) object.entityIds = entityIdsOf(object);
    if (hit) this.changes++;
    if (table.size >= LIMITS[kind]) this.evict(table, LIMITS[kind]);
    // A deeply frozen record is its own snapshot: it can never change.
    const kept = deeplyFrozen(record, this.memoTables.frozenRecords) ? record : snapshot(record);
    table.set(id, { record: kept, object, given: record, used: this.compiles });
    return object;
  }

  /**
   * Makes room in a full table: the oldest entries (in the order they were made) that this compile has
   * not handed in go, down to three quarters of the limit. Emptying the whole table instead, as a large
   * project's candidates fill it every hundred questions or so, made every object of the next compile
   * anew, and let go of every memo kept by object with it; the objects a thread hands in every time (its
   * newest facts, its items) stay here.
   */
  private evict(table: Map<string, Entry<unknown>>, limit: number): void {
    // A table this compile alone filled is let be until the next compile (see below).
    if (this.overfull.get(table) === this.compiles) return;
    this.changes++;
    for (const [id, entry] of table) {
      if (table.size <= (limit * 3) / 4) return;
      if (entry.used !== this.compiles) table.delete(id);
    }
    // One compile handed in more than the limit: nothing older is left to let go, and every entry left
    // is one this compile uses, so the table holds them (as many as the compile's own lists) rather
    // than being emptied for the next compile to make them all again; not looked at again this compile.
    if (table.size >= limit) this.overfull.set(table, this.compiles);
  }
}

/**
 * Fact versions and layer versions are written once under their id and never rewritten
 * (src/facts/fact-schema.ts: a change closes the old version and inserts a new one; layer_versions
 * rows likewise), except for the lifecycle columns that close, dispute or flag a version. Comparing
 * those, and the content as a guard against an id reused for other text, is as exact as comparing
 * every column, and a compile of a large thread checks thousands of versions: whole-row comparison of
 * freshly loaded strings cost more than the rest of a warm compile.
 */
const sameFactVersion = (a: FactVersion, b: FactVersion) =>
  a.isValid === b.isValid &&
  a.txEnd === b.txEnd &&
  a.supersededBy === b.supersededBy &&
  a.needsReview === b.needsReview &&
  a.contradictionStatus === b.contradictionStatus &&
  a.statusReason === b.statusReason &&
  a.validUntil === b.validUntil &&
  a.tokens === b.tokens &&
  a.content === b.content;

const sameLayerVersion = (a: LayerEntry, b: LayerEntry) =>
  a.replacedBy === b.replacedBy &&
  a.expiresAt === b.expiresAt &&
  a.tokens === b.tokens &&
  a.content === b.content;

/**
 * The run of held records a kind's lists begin with, resolved: their objects, and the table entries
 * holding them, marked used each compile as resolving them marks them. Usable only when every record
 * is deeply frozen (so never changed since), and current only while `changes` is the cache's: once a
 * table lets go of or replaces an entry, the run is resolved record by record again and re-read.
 */
interface HeldRun {
  usable: boolean;
  objects: ContextObject[];
  entries: Entry<unknown>[];
  changes: number;
}

function freshRuns(): Record<Kind, LeadingRun<unknown, HeldRun>> {
  return {
    fact: new LeadingRun(),
    working: new LeadingRun(),
    environment: new LeadingRun(),
    item: new LeadingRun(),
    message: new LeadingRun(),
  };
}

/** Of one list, the objects no standing gate holds, and the omissions of those one does, in order. */
export interface StandingSplit {
  open: ContextObject[];
  held: Omission[];
  /** A kept list `open` begins with (the open objects of a held run), when there is one. */
  start?: readonly ContextObject[];
}

function freshVerdicts(key: string) {
  return {
    key,
    // By object, let go with it: the objects are what the tables above bound.
    table: new WeakMap<ContextObject, Omission | null>(),
    lists: new WeakMap<readonly ContextObject[], StandingSplit>(),
    /** Per kind of list, the run its lists begin with, split (see standingSplit). */
    runs: new Map<string, LeadingRun<ContextObject, StandingSplit>>(),
  };
}

const STATE_LISTS = ["facts", "working", "environment", "items"] as const;
const FACT_LISTS = ["facts", "working", "environment"] as const;

const sameItems = <T>(a: readonly T[], b: readonly T[]) =>
  a === b || (a.length === b.length && a.every((item, i) => item === b[i]));

const sameOmissions = (a: Omission[], b: Omission[]) =>
  a.length === b.length &&
  a.every((o, i) => {
    const other = b[i];
    // Standing omissions are kept per object (standingVerdicts), so most are the same object.
    return (
      o === other ||
      (other !== undefined &&
        o.object === other.object &&
        o.reason === other.reason &&
        o.detail === other.detail &&
        o.tier === other.tier)
    );
  });

function sameStated(a: Map<string, StatedClaims>, b: Map<string, StatedClaims>): boolean {
  if (a.size !== b.size) return false;
  for (const [id, claims] of b) if (!sameData(a.get(id), claims)) return false;
  return true;
}
