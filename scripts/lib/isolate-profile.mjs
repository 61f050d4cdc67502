// A CPU profile of the dev server's Worker isolate, taken through its inspector (the DevTools protocol
// that `wrangler dev --inspector-port` serves), over a stretch of a bench: locally the Worker and every
// Durable Object it runs share that isolate, so the profile shows the router, the thread objects and the
// project index together, sampled every `intervalUs` microseconds. Written as a `.cpuprofile` file,
// which Chrome DevTools (Performance, load profile) and `node --cpu-prof` tooling read; the stacks name
// the functions of wrangler's bundle.
//
// Connected as scripts/lib/isolate-heap.mjs connects (DevTools origin; the isolate answers a protocol
// call only while it runs, so calls are followed by requests to the server until they are answered),
// and left attached only while the stretch runs.
import { writeFileSync } from "node:fs";

const DEVTOOLS_ORIGIN = "https://devtools.devprod.cloudflare.dev";
const POKE_EVERY_MS = 100;
const CALL_TIMEOUT_MS = 10_000;

export class IsolateProfile {
  /**
   * Starts sampling; undefined (and said) when the inspector cannot be reached, so a bench goes on.
   * @param {number} port the inspector's port
   * @param {() => Promise<unknown>} poke a request to the server
   * @param {number} intervalUs
   * @returns {Promise<IsolateProfile | undefined>}
   */
  static async start(port, poke, intervalUs = 100) {
    try {
      const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
      const target = targets.find((t) => typeof t.webSocketDebuggerUrl === "string");
      if (!target) throw new Error("no target to attach to");
      const socket = new WebSocket(target.webSocketDebuggerUrl, { headers: { origin: DEVTOOLS_ORIGIN } });
      await new Promise((resolve, reject) => {
        socket.addEventListener("open", resolve, { once: true });
        socket.addEventListener("error", () => reject(new Error("the inspector refused the connection")), {
          once: true,
        });
      });
      const profile = new IsolateProfile(socket, poke);
      await profile.#call("Profiler.enable");
      await profile.#call("Profiler.setSamplingInterval", { interval: intervalUs });
      await profile.#call("Profiler.start");
      return profile;
    } catch (error) {
      console.error(`  … CPU profile not taken: ${error instanceof Error ? error.message : error}`);
      return undefined;
    }
  }

  /** @param {WebSocket} socket @param {() => Promise<unknown>} poke */
  constructor(socket, poke) {
    this.socket = socket;
    this.poke = poke;
    this.next = 0;
    /** @type {Map<number, (message: any) => void>} */
    this.pending = new Map();
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data));
      const waiting = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      waiting(message);
    });
  }

  /**
   * Stops sampling, writes the profile to `file` and disconnects; the profile's samples and duration.
   * @param {string} file
   * @returns {Promise<{ samples: number; seconds: number } | undefined>}
   */
  async stop(file) {
    try {
      const { profile } = /** @type {{ profile: any }} */ (await this.#call("Profiler.stop"));
      writeFileSync(file, JSON.stringify(profile));
      return { samples: profile.samples.length, seconds: (profile.endTime - profile.startTime) / 1e6 };
    } catch (error) {
      console.error(`  … CPU profile not written: ${error instanceof Error ? error.message : error}`);
      return undefined;
    } finally {
      this.socket.close();
    }
  }

  /** @param {string} method */
  async #call(method, params = {}) {
    const id = ++this.next;
    const answered = new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method} had no answer within ${CALL_TIMEOUT_MS / 1000} s`));
      }, CALL_TIMEOUT_MS);
      this.pending.set(id, (message) => {
        clearTimeout(timer);
        if (message.error) reject(new Error(`${message.error.message} (${message.error.code})`));
        else resolve(message.result);
      });
    });
    this.socket.send(JSON.stringify({ id, method, params }));
    let done = false;
    answered.then(
      () => {
        done = true;
      },
      () => {
        done = true;
      },
    );
    while (!done) {
      await this.poke().catch(() => undefined);
      await Promise.race([answered.catch(() => undefined), new Promise((r) => setTimeout(r, POKE_EVERY_MS))]);
    }
    return answered;
  }
}
