import type { BackgroundHost } from "./host";

/** One pass of the thread's background work; it reports whether extraction failed. */
export type UpkeepPass = () => Promise<{ extractionFailed: boolean }>;

/** How long writes must pause before a scheduled pass starts: a burst of ingests is extracted as one. */
export const QUIET_MS = 100;

/**
 * The thread's write-path work that a read must not do: extraction catch-up and index maintenance
 * (src/thread/thread-object.ts defines the pass). Writes `schedule` it; it starts in the background
 * once writes pause for `quietMs` (a bulk load sent batch after batch is extracted in whole slices, not
 * in slices cut wherever a batch happened to end), one pass at a time, and a write arriving during a
 * pass makes it go round once more. A compile may wait for it, for a bounded time (`settled`, which
 * starts a pass still waiting for quiet at once), so it reads what was just written without ever doing
 * that work itself. Queue jobs remain the durable backstop: a pass lost to an eviction is redone by the
 * extraction job every ingest enqueues, and by the next write or compile.
 */
export class Upkeep {
  private running: Promise<void> | undefined;
  private again = false;
  private failed = false;
  /** A scheduled pass waiting for writes to pause, with what ends the object's wait for it. */
  private waiting: { timer?: ReturnType<typeof setTimeout>; done: () => void } | undefined;
  /** Writes in progress: the quiet window starts when the last one ends. */
  private writes = 0;

  constructor(
    private readonly host: BackgroundHost,
    private readonly pass: UpkeepPass,
    private readonly quietMs = QUIET_MS,
  ) {}

  /** Starts a pass once writes pause, unless one is running: a running one goes round again when it ends. */
  schedule(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.waiting) clearTimeout(this.waiting.timer);
    const done = this.waiting?.done ?? this.keepAlive();
    const timer = this.writes > 0 ? undefined : setTimeout(() => this.start(), this.quietMs);
    this.waiting = { ...(timer ? { timer } : {}), done };
  }

  /** A write began: a scheduled pass waits for it to end, and for quiet after it. */
  writeStarted(): void {
    this.writes++;
    if (this.waiting) {
      clearTimeout(this.waiting.timer);
      this.waiting = { done: this.waiting.done };
    }
  }

  /** A write ended: with no other in progress, the quiet window of a scheduled pass starts again. */
  writeEnded(): void {
    this.writes = Math.max(0, this.writes - 1);
    if (this.waiting && this.writes === 0) this.schedule();
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

  /** Waits for the pass in flight (starting one that waits for quiet), at most `ms`; true when done. */
  async settled(ms: number): Promise<boolean> {
    this.start();
    const running = this.running;
    if (!running) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    try {
      return await Promise.race([running.then(() => true), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        this.failed = (await this.pass()).extractionFailed;
      } catch (error) {
        console.error("thread upkeep failed", error);
      }
    } while (this.again);
  }
}
