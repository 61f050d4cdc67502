import { compareBinary } from "../binary-collation";

/**
 * The thread's messages in (ts, id) order, held in memory so neighbour rescue finds a message's previous
 * and next turn by an id lookup (or a binary search) instead of two index seeks per retrieved message. It is loaded from
 * `messages_order` on first use and kept current by `added`, which the object calls in the transaction
 * that inserts messages (the object is the only writer of its storage, and messages are never deleted).
 * Past `limit` messages it gives up its copy and answers `undefined`, and callers seek in SQL instead.
 */
export class TranscriptOrder {
  private ids: string[] = [];
  private times: string[] = [];
  /** `Date.parse` of each time, parsed once when the message enters the order. */
  private millis: number[] = [];
  /** Each id's index in `ids`, built on first lookup after the order changes. */
  private positions: Map<string, number> | undefined;
  private state: "unloaded" | "loaded" | "too-large" = "unloaded";

  constructor(
    private readonly sql: SqlStorage,
    private readonly limit: number,
  ) {}

  /** Record messages just inserted (only those whose insert took effect). */
  added(messages: readonly { id: string; ts: string }[]): void {
    if (this.state !== "loaded" || messages.length === 0) return;
    if (this.ids.length + messages.length > this.limit) {
      this.release();
      return;
    }
    const fresh = [...messages].sort((a, b) => compare(a.ts, a.id, b.ts, b.id));
    // A batch after every held message (the usual new turn) is appended in place, and its ids indexed
    // if the positions are: the merge below copies the whole order, and the next lookup would index
    // every message again, for one turn.
    const last = this.ids.length - 1;
    const first = fresh[0] as { id: string; ts: string };
    if (last < 0 || compare(this.times[last] as string, this.ids[last] as string, first.ts, first.id) < 0) {
      for (const m of fresh) {
        this.positions?.set(m.id, this.ids.length);
        this.ids.push(m.id);
        this.times.push(m.ts);
        this.millis.push(Date.parse(m.ts));
      }
      return;
    }
    // One merge pass: a batch lands anywhere in the order, since clients may send past timestamps.
    const ids: string[] = [];
    const times: string[] = [];
    const millis: number[] = [];
    const keep = (i: number) => {
      ids.push(this.ids[i] as string);
      times.push(this.times[i] as string);
      millis.push(this.millis[i] as number);
    };
    let i = 0;
    for (const m of fresh) {
      while (i < this.ids.length && compare(this.times[i] as string, this.ids[i] as string, m.ts, m.id) < 0) {
        keep(i++);
      }
      ids.push(m.id);
      times.push(m.ts);
      millis.push(Date.parse(m.ts));
    }
    for (; i < this.ids.length; i++) keep(i);
    this.ids = ids;
    this.times = times;
    this.millis = millis;
    this.positions = undefined;
  }

  /**
   * The messages just before and after position (ts, id), whether or not that message exists, as
   * `(ts, id) < (?, ?) ORDER BY ts DESC, id DESC LIMIT 1` and its mirror would find them.
   */
  around(
    ts: string,
    id: string,
  ): { previous?: { id: string; ts: string }; next?: { id: string; ts: string } } | undefined {
    const at = this.locate(ts, id);
    if (!at) return undefined;
    const entry = (i: number) =>
      i >= 0 && i < this.ids.length ? { id: this.ids[i] as string, ts: this.times[i] as string } : undefined;
    const previous = entry(at.before);
    const next = entry(at.after);
    return { ...(previous ? { previous } : {}), ...(next ? { next } : {}) };
  }

  /**
   * The ids `around` finds, kept only when their time is within `gapMs` of `ts` (as
   * `Math.abs(Date.parse(a) - Date.parse(b)) <= gapMs` would decide, with the times parsed once).
   */
  within(ts: string, id: string, gapMs: number): { previous?: string; next?: string } | undefined {
    const at = this.locate(ts, id);
    if (!at) return undefined;
    const own = at.self ?? Date.parse(ts);
    // Called for every retrieved message of every compile: no closure, no spread.
    const found: { previous?: string; next?: string } = {};
    const previous = this.near(at.before, own, gapMs);
    if (previous) found.previous = previous;
    const next = this.near(at.after, own, gapMs);
    if (next) found.next = next;
    return found;
  }

  /** The id at index `i` when there is one and its time is within `gapMs` of `own`. */
  private near(i: number, own: number, gapMs: number): string | undefined {
    return i >= 0 && i < this.ids.length && Math.abs((this.millis[i] as number) - own) <= gapMs
      ? (this.ids[i] as string)
      : undefined;
  }

  /**
   * Indexes of the last message before position (ts, id) and the first after it, and the parsed time
   * of the message at that position when it is in the order; undefined when the order is not held.
   */
  private locate(ts: string, id: string): { before: number; after: number; self?: number } | undefined {
    if (!this.load()) return undefined;
    if (!this.positions) {
      this.positions = new Map();
      for (let i = 0; i < this.ids.length; i++) this.positions.set(this.ids[i] as string, i);
    }
    // A stored message (the usual question) is found by id; any other position by binary search.
    const known = this.positions.get(id);
    if (known !== undefined && this.times[known] === ts) {
      return { before: known - 1, after: known + 1, self: this.millis[known] as number };
    }
    let low = 0;
    let high = this.ids.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (compare(this.times[mid] as string, this.ids[mid] as string, ts, id) < 0) low = mid + 1;
      else high = mid;
    }
    return { before: low - 1, after: low };
  }

  private load(): boolean {
    if (this.state === "loaded") return true;
    if (this.state === "too-large") return false;
    const count = this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM messages").one().n;
    if (count > this.limit) {
      this.release();
      return false;
    }
    // An index-only scan of messages_order (ts, id): no sort, no table rows.
    const rows = this.sql
      .exec<{ id: string; ts: string }>("SELECT id, ts FROM messages ORDER BY ts, id")
      .toArray();
    this.ids = rows.map((r) => r.id);
    this.times = rows.map((r) => r.ts);
    this.millis = rows.map((r) => Date.parse(r.ts));
    this.positions = undefined;
    this.state = "loaded";
    return true;
  }

  private release(): void {
    this.ids = [];
    this.times = [];
    this.millis = [];
    this.positions = undefined;
    this.state = "too-large";
  }
}

function compare(aTs: string, aId: string, bTs: string, bId: string): number {
  return compareBinary(aTs, bTs) || compareBinary(aId, bId);
}
