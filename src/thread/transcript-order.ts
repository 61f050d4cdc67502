import { compareBinary } from "./binary-collation";

/**
 * The thread's messages in (ts, id) order, held in memory so neighbour rescue finds a message's previous
 * and next turn by binary search instead of two index seeks per retrieved message. It is loaded from
 * `messages_order` on first use and kept current by `added`, which the object calls in the transaction
 * that inserts messages (the object is the only writer of its storage, and messages are never deleted).
 * Past `limit` messages it gives up its copy and answers `undefined`, and callers seek in SQL instead.
 */
export class TranscriptOrder {
  private ids: string[] = [];
  private times: string[] = [];
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
    // One merge pass: a batch lands anywhere in the order, since clients may send past timestamps.
    const ids: string[] = [];
    const times: string[] = [];
    let i = 0;
    for (const m of fresh) {
      while (i < this.ids.length && compare(this.times[i] as string, this.ids[i] as string, m.ts, m.id) < 0) {
        ids.push(this.ids[i] as string);
        times.push(this.times[i] as string);
        i++;
      }
      ids.push(m.id);
      times.push(m.ts);
    }
    for (; i < this.ids.length; i++) {
      ids.push(this.ids[i] as string);
      times.push(this.times[i] as string);
    }
    this.ids = ids;
    this.times = times;
  }

  /**
   * The messages just before and after position (ts, id), whether or not that message exists, as
   * `(ts, id) < (?, ?) ORDER BY ts DESC, id DESC LIMIT 1` and its mirror would find them.
   */
  around(
    ts: string,
    id: string,
  ): { previous?: { id: string; ts: string }; next?: { id: string; ts: string } } | undefined {
    if (!this.load()) return undefined;
    let low = 0;
    let high = this.ids.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (compare(this.times[mid] as string, this.ids[mid] as string, ts, id) < 0) low = mid + 1;
      else high = mid;
    }
    const at = low < this.ids.length && this.ids[low] === id && this.times[low] === ts ? low + 1 : low;
    const entry = (i: number) =>
      i >= 0 && i < this.ids.length ? { id: this.ids[i] as string, ts: this.times[i] as string } : undefined;
    const previous = entry(low - 1);
    const next = entry(at);
    return { ...(previous ? { previous } : {}), ...(next ? { next } : {}) };
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
    this.state = "loaded";
    return true;
  }

  private release(): void {
    this.ids = [];
    this.times = [];
    this.state = "too-large";
  }
}

function compare(aTs: string, aId: string, bTs: string, bId: string): number {
  return compareBinary(aTs, bTs) || compareBinary(aId, bId);
}
