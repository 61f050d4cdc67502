import { DEFAULT_LIMITS } from "../extraction/run-extraction";
import type { BackgroundHost } from "./host";

/**
 * One pass of the thread's background work; it reports whether extraction failed. `indexFacts` says
 * whether the thread has been read (compiled), so that its fact index is worth keeping current.
 */
export type UpkeepPass = (
  control: PassControl,
  options: { indexFacts: boolean },
) => Promise<{ extractionFailed: boolean }>;

/** What a pass is handed by the object running it. */
export interface PassControl {
  /**
   * Resolves once no request is in progress, after YIELD_MS for the event loop unless a compile waits
   * for the catch-up: awaited before each slice.
   */
  idle(): Promise<void>;
  /**
   * What a compile waits for is done: the pending messages extracted and the first batch of vectors
   * written (a caller's last turns). What is left is a backlog (a bulk import's vectors), which the pass
   * works between requests and no compile waits on.
   */
  caughtUp(): void;
  /**
   * Another round was asked for (a write, or a compile with messages pending) since this one began: the
   * pass leaves the rest of its backlog to that round, which catches up first.
   */
  anotherRound(): boolean;
}

/** How long requests must pause before a scheduled pass starts: a burst of ingests is extracted as one. */
export const QUIET_MS = 100;

/**
 * How long a compile waits for the pass in flight (extraction of what was just ingested, index upkeep)
 * before it answers with what is there: read-your-writes, bounded; the trace says which. It waits only
 * when at most WAIT_FOR_PENDING messages are pending (one extraction slice: the turns a caller just
 * sent); a larger backlog (a bulk import) is compiled from what is extracted so far plus the raw
 * messages, which retrieval covers, while it drains in the background.
 */
export const FRESHNESS_WAIT_MS = 2_000;
export const WAIT_FOR_PENDING = DEFAULT_LIMITS.maxMessages;

/**
 * How long a pass gives the event loop before each slice. A request reaches the object, and its answer
 * leaves, in several steps (locally: the dev proxy, the Worker, the object, back), and each step needs a
 * turn of the loop; a turn that only runs what is ready now moves a waiting request one step per slice.
 * Measured during a 60,000-message drain (compile round trips, ms): with no delay 100–240 while
 * extracting and 400–1,500 during the vectors' backlog; with 5 ms, 80–140 and mostly 100–300 (a few
 * 400–600, behind the index's occasional long write, a list split or training).
 */
export const YIELD_MS = 5;

/**
 * A thread compiled within this long is interactive: its writes are worked through at once. Writes to
 * other threads (a bulk import, a thread nobody reads) are left to the extraction queue, which paces
 * them, so that thousands of threads written at once do not all read the tenant's D1 at once.
 */
export const INTERACTIVE_MS = 10 * 60 * 1000;

/**
 * The thread's write-path work that a read must not do: extraction catch-up and index maintenance
 * (src/thread/thread-object.ts defines the pass). Writes `schedule` it; it starts in the background
 * once requests pause for `quietMs` (a bulk load sent batch after batch is extracted in whole slices,
 * not in slices cut wherever a batch happened to end), one pass at a time, and a write arriving during
 * a pass makes it go round once more.
 *
 * Requests `hold` it while they run: a pass waits for quiet before it starts, and between its slices
 * (the pass awaits `idle`), so an ingest or a compile is never queued behind a slice of a backlog that
 * started while it was in flight. A compile may instead wait for the pass, for a bounded time
 * (`settled`, which starts a pass still waiting for quiet at once), when what is pending is its own
 * caller's last turn. Queue jobs remain the durable backstop: a pass lost to an eviction is redone by
 * the extraction job every ingest enqueues, and by the next write or compile.
 */
export class Upkeep {
  private running: Promise<void> | undefined;
  private again = false;
  private failed = false;
  /** A scheduled pass waiting for requests to pause, with what ends the object's wait for it. */
  private waiting: { timer?: ReturnType<typeof setTimeout>; done: () => void } | undefined;
  /** Requests in progress, and the writes among them: the quiet window starts when the last write ends. */
  private holds = 0;
  private writes = 0;
  /** Passes waiting (between slices) for the requests in progress to end. */
  private idlers: (() => void)[] = [];
  /** When the thread was last read (compiled), by this object's clock; 0 when never. */
  private lastRead = 0;
  /** Rounds of the pass started, and the last one caught up (PassControl.caughtUp, or ended). */
  private rounds = 0;
  private caughtUpRound = 0;
  /** Compiles waiting for a round to catch up. */
  private catchUpWaiters: { round: number; resolve: () => void }[] = [];
  /** Whether `afterRead`'s slices are running. */
  private preparing = false;

  constructor(
    private readonly host: BackgroundHost,
    private readonly pass: UpkeepPass,
    private readonly quietMs = QUIET_MS,
  ) {}

  /**
   * Starts a pass once writes pause, unless one is running: a running one goes round again when it ends.
   * A pass already waiting keeps its timer: only writes restart the quiet window (hold/release).
   */
  schedule(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.waiting) return;
    this.waiting = { done: this.keepAlive() };
    this.arm();
  }

  /** Starts the quiet window of the waiting pass, unless writes are in progress. */
  private arm(): void {
    const waiting = this.waiting;
    if (!waiting || this.writes > 0) return;
    clearTimeout(waiting.timer);
    waiting.timer = setTimeout(() => this.start(), this.quietMs);
  }

  /**
   * Before a compile reads: the first read primes the fact index, and pending messages or facts
   * announced while the thread was idle are worked through, on the write path; the compile waits for
   * that (bounded) unless what is pending is a backlog. Returns how long it waited, in ms.
   */
  async beforeRead(pending: number, factsBehind: boolean): Promise<number> {
    if (this.noteRead() || pending > 0 || factsBehind) this.schedule();
    const started = performance.now();
    if (pending <= WAIT_FOR_PENDING) await this.settled(FRESHNESS_WAIT_MS);
    return performance.now() - started;
  }

  /** A compile is reading the thread; true when it is the first since the object started. */
  noteRead(now = Date.now()): boolean {
    const first = this.lastRead === 0;
    this.lastRead = now;
    return first;
  }

  /**
   * After a compile: what it found missing from the read path's memory (a full-text list a question
   * wanted) is read by `slice`, a piece at a time between requests, while it returns true. Not a pass:
   * nothing is written, and a write's pass is neither started nor held back by it.
   */
  afterRead(slice: () => boolean): void {
    if (this.preparing) return;
    this.preparing = true;
    const done = this.keepAlive();
    void (async () => {
      try {
        do await this.idle();
        while (slice());
      } catch (error) {
        // Only speed is lost: the next compile reads what it needs itself.
        console.error("read-path preparation failed", error);
      } finally {
        this.preparing = false;
        done();
      }
    })();
  }

  /** After a write: an interactive thread's pass is scheduled; any other's work is the queue's. */
  afterWrite(now = Date.now()): void {
    if (this.lastRead > 0 && now - this.lastRead < INTERACTIVE_MS) this.schedule();
  }

  /**
   * A request began: a running pass pauses before its next slice until it ends. A write also holds a
   * scheduled pass back (its quiet window starts again when the last write ends); a read does not, so a
   * stream of compiles never starves a backlog, which is worked between them.
   */
  hold(kind: "write" | "read" = "write"): void {
    this.holds++;
    if (kind === "read") return;
    this.writes++;
    if (this.waiting) {
      clearTimeout(this.waiting.timer);
      this.waiting.timer = undefined;
    }
  }

  /** A request ended: paused passes resume when none is left; after the last write, quiet starts. */
  release(kind: "write" | "read" = "write"): void {
    this.holds = Math.max(0, this.holds - 1);
    if (kind === "write") this.writes = Math.max(0, this.writes - 1);
    if (this.holds === 0) for (const resume of this.idlers.splice(0)) resume();
    if (kind === "write" && this.writes === 0) this.arm();
  }

  /**
   * Resolves once no request is in progress: a pass awaits it before each slice. It first gives the
   * runtime's event loop YIELD_MS on a timer, where a resolved promise gives none: a slice's awaits are
   * mostly on work already done, and a pass that only ever awaits such promises keeps the isolate from
   * delivering a request or writing out an answer until the whole backlog is extracted. Measured before
   * this turn: a compile answered in 107 ms on the server reached its client 15.8 s later, after 28,400
   * messages.
   */
  async idle(): Promise<void> {
    // Not while a compile waits for the pass to catch up: that wait is bounded (one slice, a batch of
    // vectors, the fact index) and is the caller's own read-your-writes, which the turns would only
    // lengthen (by YIELD_MS a step: 20 ms on every compile right after a write).
    if (this.catchUpWaiters.length === 0) await new Promise((resolve) => setTimeout(resolve, YIELD_MS));
    if (this.holds === 0) return;
    await new Promise<void>((resolve) => this.idlers.push(resolve));
  }

  /** Keeps the object alive until the pass being scheduled has run; returns what ends that. */
  private keepAlive(): () => void {
    let done = () => {};
    this.host.background(
      new Promise<void>((resolve) => {
        done = resolve;
      }),
    );
    return done;
  }

  /** Starts the scheduled pass now. */
  private start(): void {
    const waiting = this.waiting;
    if (!waiting) return;
    clearTimeout(waiting.timer);
    this.waiting = undefined;
    this.running = this.loop().finally(() => {
      this.running = undefined;
      waiting.done();
    });
  }

  /** Whether the last pass's extraction failed. */
  get extractionFailed(): boolean {
    return this.failed;
  }

  /**
   * Waits until the pass in flight (starting one that waits for quiet) has caught up, at most `ms`; true
   * when it did. A write that arrived during a round is worked by the next one, so that is the round
   * waited for then.
   */
  async settled(ms: number): Promise<boolean> {
    if (!this.running && !this.waiting) return true;
    // A pass waiting for quiet is the next round; a write during the running round is the next one's.
    const round = !this.running || this.again ? this.rounds + 1 : this.rounds;
    if (this.caughtUpRound >= round) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const waiter = { round, resolve: () => {} };
    const caughtUp = new Promise<true>((resolve) => {
      waiter.resolve = () => resolve(true);
      this.catchUpWaiters.push(waiter);
    });
    // Started once the wait is known, so the pass gives no turns before the caller's catch-up.
    this.start();
    try {
      return await Promise.race([caughtUp, timeout]);
    } finally {
      clearTimeout(timer);
      this.catchUpWaiters = this.catchUpWaiters.filter((w) => w !== waiter);
    }
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      const round = ++this.rounds;
      const control = {
        idle: () => this.idle(),
        caughtUp: () => this.markCaughtUp(round),
        anotherRound: () => this.again,
      };
      try {
        const indexFacts = this.lastRead > 0;
        this.failed = (await this.pass(control, { indexFacts })).extractionFailed;
      } catch (error) {
        console.error("thread upkeep failed", error);
      } finally {
        this.markCaughtUp(round);
      }
    } while (this.again);
  }

  private markCaughtUp(round: number): void {
    if (round <= this.caughtUpRound) return;
    this.caughtUpRound = round;
    const waiting = this.catchUpWaiters;
    this.catchUpWaiters = waiting.filter((w) => w.round > round);
    for (const w of waiting) if (w.round <= round) w.resolve();
  }
}
