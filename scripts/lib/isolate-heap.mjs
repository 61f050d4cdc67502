// The V8 heap of the dev server's Worker isolate, read through its inspector (the DevTools protocol that
// `wrangler dev --inspector-port` serves). Locally the Worker and every Durable Object it runs share one
// isolate, so this is what all of them hold together, measured after a full collection so that garbage
// does not count: the difference across a step is what that step left alive. Memory outside the V8 heap
// (SQLite's page cache, ArrayBuffer backing stores) is not in it.
//
// Wrangler's inspector proxy admits only DevTools origins, hence the Origin header (Node's WebSocket
// takes headers as an undici extension). The isolate answers protocol calls only while it runs, so a
// collection is followed by a request to the server (`poke`), which lets it run. Each reading connects
// and disconnects: an inspector left attached receives every console message of the run through
// wrangler's own process, which then delayed responses by up to a minute during a bulk extraction.

const DEVTOOLS_ORIGIN = "https://devtools.devprod.cloudflare.dev";
const CALL_TIMEOUT_MS = 10_000;
const READ_ATTEMPTS = 3;
const RETRY_AFTER_MS = 1_000;
const POKE_EVERY_MS = 250;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class IsolateHeap {
  /** @param {WebSocket} socket */
  constructor(socket) {
    this.socket = socket;
    this.next = 0;
    /** @type {Map<number, { resolve: (result: unknown) => void, reject: (error: Error) => void }>} */
    this.pending = new Map();
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data));
      const waiting = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      if (message.error) waiting.reject(new Error(`${message.error.message} (${message.error.code})`));
      else waiting.resolve(message.result);
    });
  }

  /**
   * Connects to the inspector at `port` (the Worker's target); undefined when it cannot, so a bench goes
   * on without the figure.
   * @param {number} port
   * @returns {Promise<IsolateHeap | undefined>}
   */
  static async connect(port) {
    try {
      const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
      const target = targets.find((t) => typeof t.webSocketDebuggerUrl === "string");
      if (!target) return undefined;
      const socket = new WebSocket(target.webSocketDebuggerUrl, { headers: { origin: DEVTOOLS_ORIGIN } });
      await new Promise((resolve, reject) => {
        socket.addEventListener("open", resolve, { once: true });
        socket.addEventListener("error", () => reject(new Error("the inspector refused the connection")), {
          once: true,
        });
      });
      const heap = new IsolateHeap(socket);
      await heap.#call("HeapProfiler.enable");
      return heap;
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
    let done = false;
    const collected = this.#call("HeapProfiler.collectGarbage").finally(() => {
      done = true;
    });
    // A request that reaches the isolate before the call does leaves it unanswered: ask again until
    // the collection has run (the call's own timeout ends this).
    while (!done) {
      await poke();
      await Promise.race([collected.catch(() => undefined), sleep(POKE_EVERY_MS)]);
    }
    await collected;
    const usage = /** @type {{ usedSize: number }} */ (await this.#call("Runtime.getHeapUsage"));
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
    for (const { reject } of this.pending.values()) reject(new Error("the inspector connection closed"));
    this.pending.clear();
    this.socket.close();
  }

  /** @param {string} method */
  #call(method, params = {}) {
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method} had no answer within ${CALL_TIMEOUT_MS / 1000} s`));
      }, CALL_TIMEOUT_MS);
      this.pending.set(id, {
        resolve: (result) => {
          clearTimeout(timer);
          resolve(result);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }
}
