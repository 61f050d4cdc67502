import type { BackgroundHost } from "./host";

/** One pass of the thread's background work; it reports whether extraction failed. */
export type UpkeepPass = () => Promise<{ extractionFailed: boolean }>;

/**
 * The thread's write-path work that a read must not do: extraction catch-up and index maintenance
 * (src/thread/thread-object.ts defines the pass). Writes `schedule` it; it runs in the background, one
 * pass at a time, and a write arriving during a pass makes it go round once more. A compile may wait
 * for the pass in flight, for a bounded time (`settled`), so it reads what was just written without ever
 * doing that work itself. Queue jobs remain the durable backstop: a pass lost to an eviction is redone
 * by the extraction job every ingest enqueues, and by the next write or compile.
 */
export class Upkeep {
  private running: Promise<void> | undefined;
  private again = false;
  private failed = false;

  constructor(
    private readonly host: BackgroundHost,
    private readonly pass: UpkeepPass,
  ) {}

  /** Starts a pass unless one is running; a running one goes round again when it ends. */
  schedule(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = undefined;
    });
    this.host.background(this.running);
  }

  /** Whether the last pass's extraction failed. */
  get extractionFailed(): boolean {
    return this.failed;
  }

  /** Waits for the pass in flight, at most `ms`; true when none is running any more. */
  async settled(ms: number): Promise<boolean> {
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
