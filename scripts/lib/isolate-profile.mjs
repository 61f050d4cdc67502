// A CPU profile of the dev server's Worker isolate, taken through its inspector (the DevTools protocol
// that `wrangler dev --inspector-port` serves), over a stretch of a bench: locally the Worker and every
// Durable Object it runs share that isolate, so the profile shows the router, the thread objects and the
// project index together, sampled every `intervalUs` microseconds. Written as a `.cpuprofile` file,
// which Chrome DevTools (Performance, load profile) and `node --cpu-prof` tooling read; the stacks name
// the functions of wrangler's bundle.
//
// Read through scripts/lib/inspector-session.mjs, attached only while the stretch runs.
import { writeFileSync } from "node:fs";
import { InspectorSession } from "./inspector-session.mjs";

export class IsolateProfile {
  /**
   * Starts sampling; undefined (and said) when the inspector cannot be reached, so a bench goes on.
   * @param {number} port the inspector's port
   * @param {() => Promise<unknown>} poke a request to the server, so the isolate answers
   * @param {number} intervalUs
   * @returns {Promise<IsolateProfile | undefined>}
   */
  static async start(port, poke, intervalUs = 100) {
    try {
      const session = await InspectorSession.connect(port);
      for (const [method, params] of [
        ["Profiler.enable", {}],
        ["Profiler.setSamplingInterval", { interval: intervalUs }],
        ["Profiler.start", {}],
      ]) {
        await session.answered(session.call(method, params), poke);
      }
      return new IsolateProfile(session, poke);
    } catch (error) {
      console.error(`  … CPU profile not taken: ${error instanceof Error ? error.message : error}`);
      return undefined;
    }
  }

  /** @param {InspectorSession} session @param {() => Promise<unknown>} poke */
  constructor(session, poke) {
    this.session = session;
    this.poke = poke;
  }

  /**
   * Stops sampling, writes the profile to `file` and disconnects; the profile's samples and duration.
   * @param {string} file
   * @returns {Promise<{ samples: number; seconds: number } | undefined>}
   */
  async stop(file) {
    try {
      const { profile } = /** @type {{ profile: any }} */ (
        await this.session.answered(this.session.call("Profiler.stop"), this.poke)
      );
      writeFileSync(file, JSON.stringify(profile));
      return { samples: profile.samples.length, seconds: (profile.endTime - profile.startTime) / 1e6 };
    } catch (error) {
      console.error(`  … CPU profile not written: ${error instanceof Error ? error.message : error}`);
      return undefined;
    } finally {
      this.session.close();
    }
  }
}
