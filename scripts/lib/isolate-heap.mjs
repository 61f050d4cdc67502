// The V8 heap of the dev server's Worker isolate, read through its inspector (the DevTools protocol that
// `wrangler dev --inspector-port` serves). Locally the Worker and every Durable Object it runs share one
// isolate, so this is what all of them hold together, measured after a full collection so that garbage
// does not count: the difference across a step is what that step left alive. Memory outside the V8 heap
// (SQLite's page cache, ArrayBuffer backing stores) is not in it.
//
// Read through scripts/lib/inspector-session.mjs. The isolate answers protocol calls only while it runs,
// so a collection is followed by requests to the server (`poke`), which let it run. Each reading connects
// and disconnects: an inspector left attached receives every console message of the run through
// wrangler's own process, which then delayed responses by up to a minute during a bulk extraction.

import { InspectorSession } from "./inspector-session.mjs";

const READ_ATTEMPTS = 3;
const RETRY_AFTER_MS = 1_000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class IsolateHeap {
  /** @param {InspectorSession} session */
  constructor(session) {
    this.session = session;
  }

  /**
   * Connects to the inspector at `port` (the Worker's target); undefined when it cannot, so a bench goes
   * on without the figure.
   * @param {number} port
   * @returns {Promise<IsolateHeap | undefined>}
   */
  static async connect(port) {
    try {
      const session = await InspectorSession.connect(port);
      await session.call("HeapProfiler.enable");
      return new IsolateHeap(session);
    } catch (error) {
      console.error(`  … isolate heap not observable: ${error instanceof Error ? error.message : error}`);
      return undefined;
    }
  }

  /**
   * Bytes the isolate's heap holds after a full collection.
   * @param {() => Promise<unknown>} poke a request to the server, so the isolate runs the collection
   * @returns {Promise<number>}
   */
  async usedAfterCollection(poke) {
    // A request that reaches the isolate before the call does leaves it unanswered: ask again until
    // the collection has run (the call's own timeout ends this).
    await this.session.answered(this.session.call("HeapProfiler.collectGarbage"), poke);
    const usage = /** @type {{ usedSize: number }} */ (await this.session.call("Runtime.getHeapUsage"));
    return usage.usedSize;
  }

  /**
   * One reading: connects, collects, reads and disconnects; undefined (and said) when it cannot be read.
   * @param {number} port
   * @param {() => Promise<unknown>} poke
   * @returns {Promise<number | undefined>}
   */
  static async read(port, poke) {
    // Now and then a fresh session's call goes unanswered (wrangler's proxy still closing the last one,
    // it seems): a few tries, each on a new connection.
    let failure = "";
    for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
      if (attempt > 0) await sleep(RETRY_AFTER_MS);
      const heap = await IsolateHeap.connect(port);
      if (!heap) return undefined;
      try {
        return await heap.usedAfterCollection(poke);
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
      } finally {
        heap.close();
      }
    }
    console.error(`  … isolate heap not read after ${READ_ATTEMPTS} tries: ${failure}`);
    return undefined;
  }

  close() {
    this.session.close();
  }
}
