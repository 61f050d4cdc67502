// The local dev server (scripts/dev.mjs) as the benches use it: started on a free port in its own
// process group, its output kept in a log file, and stopped with every child wrangler spawned.
import { spawn } from "node:child_process";
import { closeSync, openSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const devScript = fileURLToPath(new URL("../dev.mjs", import.meta.url));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

export class DevServer {
  /** @param {string} label names the log file, e.g. "statebench" */
  constructor(label) {
    this.label = label;
    this.child = undefined;
    this.exited = false;
    /** @type {string | undefined} */
    this.logPath = undefined;
    this.stopping = undefined;
    /** The port of the Worker's inspector (DevTools protocol), once started with one. */
    /** @type {number | undefined} */
    this.inspectorPort = undefined;
  }

  /**
   * Starts the server and resolves with its base URL once /healthz answers 200. With `inspector`, the
   * Worker's inspector listens on a free port too (`inspectorPort`), for scripts/lib/isolate-heap.mjs.
   */
  async start(timeoutMs = 90_000, { inspector = false } = {}) {
    const port = await freePort();
    this.inspectorPort = inspector ? await freePort() : undefined;
    const inspectorArgs = this.inspectorPort ? ["--inspector-port", String(this.inspectorPort)] : [];
    this.logPath = join(tmpdir(), `tenure-${this.label}-${process.pid}-${Date.now()}.log`);
    const log = openSync(this.logPath, "w");
    try {
      this.child = spawn(
        process.execPath,
        [devScript, "--port", String(port), "--ip", "127.0.0.1", ...inspectorArgs],
        {
          cwd: repoRoot,
          detached: true,
          stdio: ["ignore", log, log],
          // Wrangler's local dev attaches a trace collector to the Worker by default, which stores a span
          // for every request, storage call and call between objects in its own SQLite, in the same
          // process: a bench's bulk write made some 40,000 of them, and with the collector a 10,000-fact
          // project ingested 600–630 events/s instead of 740–770, and a compile right after a write took
          // p50 21–22 ms instead of 16–17 (two runs each). No deployed Worker runs it, so the benches measure without it
          // unless the caller's environment asks for it (X_LOCAL_OBSERVABILITY=true).
          env: { ...process.env, X_LOCAL_OBSERVABILITY: process.env.X_LOCAL_OBSERVABILITY ?? "false" },
        },
      );
    } finally {
      closeSync(log);
    }
    this.child.on("exit", () => {
      this.exited = true;
    });
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.exited) throw new Error("the dev server exited before answering /healthz");
      try {
        const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) });
        if (response.status === 200) return url;
      } catch {
        // Not listening yet.
      }
      await sleep(500);
    }
    throw new Error(`the dev server did not answer /healthz with 200 within ${timeoutMs / 1000} s`);
  }

  #signal(signal) {
    if (!this.child?.pid) return;
    try {
      process.kill(-this.child.pid, signal);
    } catch {
      // The group is gone already.
    }
  }

  /** Stops the whole process group; repeated calls share one stop. */
  stop() {
    if (!this.child) return Promise.resolve();
    this.stopping ??= (async () => {
      this.#signal("SIGTERM");
      const deadline = Date.now() + 5_000;
      while (!this.exited && Date.now() < deadline) await sleep(100);
      // Wrangler's own children may outlive the dev script; make sure the whole group is gone.
      this.#signal("SIGKILL");
    })();
    return this.stopping;
  }

  /** For a process "exit" handler, where nothing asynchronous runs any more. */
  killNow() {
    this.#signal("SIGKILL");
  }

  /**
   * Resident memory of each `workerd` process this server's process group runs (wrangler dev runs
   * two: its proxy and the one that runs the Worker, its Durable Objects and local D1), read from
   * Linux's /proc; an empty list elsewhere or before start. Whole processes, not one object.
   * @returns {{ pid: number, rssBytes: number }[]}
   */
  workerdMemory() {
    const group = this.child?.pid;
    if (!group) return [];
    let pids;
    try {
      pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
    } catch {
      return [];
    }
    const found = [];
    for (const pid of pids) {
      try {
        if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "workerd") continue;
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        // Fields after the parenthesised command: state, ppid, pgrp, …
        const pgrp = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
        if (pgrp !== group) continue;
        const rss = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
        if (rss) found.push({ pid: Number(pid), rssBytes: Number(rss[1]) * 1024 });
      } catch {
        // The process ended while being read, or is not ours to read.
      }
    }
    return found;
  }

  printLogTail(lines = 30) {
    if (!this.logPath) return;
    try {
      const tail = readFileSync(this.logPath, "utf8").trimEnd().split("\n");
      console.error(`--- last lines of ${this.logPath} ---`);
      console.error(tail.slice(-lines).join("\n"));
    } catch {
      // No log to show.
    }
  }
}
