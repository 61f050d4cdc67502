// One connection to the dev server's Worker isolate through its inspector (the DevTools protocol that
// `wrangler dev --inspector-port` serves): what scripts/lib/isolate-heap.mjs and isolate-profile.mjs
// read the isolate through.
//
// Wrangler's inspector proxy admits only DevTools origins, hence the Origin header (Node's WebSocket
// takes headers as an undici extension). The isolate answers protocol calls only while it runs: a caller
// that needs an answer sends requests to the server meanwhile (`answered`).

const DEVTOOLS_ORIGIN = "https://devtools.devprod.cloudflare.dev";
const CALL_TIMEOUT_MS = 10_000;
const POKE_EVERY_MS = 100;

export class InspectorSession {
  /**
   * Connects to the Worker's target at `port`; throws, saying why, when it cannot.
   * @param {number} port
   * @returns {Promise<InspectorSession>}
   */
  static async connect(port) {
    const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
    const target = targets.find((t) => typeof t.webSocketDebuggerUrl === "string");
    if (!target) throw new Error("the inspector lists no target to attach to");
    const socket = new WebSocket(target.webSocketDebuggerUrl, { headers: { origin: DEVTOOLS_ORIGIN } });
    await new Promise((resolve, reject) => {
      socket.addEventListener("open", resolve, { once: true });
      socket.addEventListener("error", () => reject(new Error("the inspector refused the connection")), {
        once: true,
      });
    });
    return new InspectorSession(socket);
  }

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
   * One protocol call: its result, or an error past CALL_TIMEOUT_MS.
   * @param {string} method
   * @returns {Promise<unknown>}
   */
  call(method, params = {}) {
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

  /**
   * A call's result, sending `poke` (a request to the server) until it is answered, so the isolate runs.
   * @param {Promise<unknown>} call
   * @param {() => Promise<unknown>} poke
   */
  async answered(call, poke) {
    let done = false;
    const settled = call.finally(() => {
      done = true;
    });
    while (!done) {
      await poke().catch(() => undefined);
      await Promise.race([settled.catch(() => undefined), new Promise((r) => setTimeout(r, POKE_EVERY_MS))]);
    }
    return settled;
  }

  close() {
    for (const { reject } of this.pending.values()) reject(new Error("the inspector connection closed"));
    this.pending.clear();
    this.socket.close();
  }
}
