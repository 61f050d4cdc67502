import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SqliteVectorIndex } from "../src/adapters/sqlite-vector-index/sqlite-vector-index";
import { type LayerChange, LayerStore, prepareLayerWrite } from "../src/thread/layers/layer-store";
import { ThreadMeta } from "../src/thread/thread-meta";
import type { ThreadObject } from "../src/thread/thread-object";
import { ThreadRecords } from "../src/thread/thread-record";
import { prepareMessages, Transcript } from "../src/thread/transcript/transcript";
import { Upkeep } from "../src/thread/upkeep";

/**
 * Each capability of a thread works on its own, over a host that is not the Durable Object: the upkeep
 * with a fake background host, the stores over a bare storage (an object that was never created as a
 * thread), with a fixed clock.
 */

const clock = { now: () => "2025-01-01T09:00:00.000Z" };
const second = (n: number) => new Date(Date.UTC(2025, 0, 1, 9) + n * 1000).toISOString();
const countTokens = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** Runs `use` over the storage of an object no thread was ever created in. */
function withStorage<T>(use: (host: { sql: SqlStorage }, state: DurableObjectState) => T | Promise<T>) {
  const id = env.THREADS.idFromName(`bare-${Math.random().toString(36).slice(2)}`);
  return runInDurableObject(env.THREADS.get(id), (_instance: ThreadObject, state) =>
    use({ sql: state.storage.sql }, state),
  );
}

describe("upkeep", () => {
  it("runs one pass at a time in the background, goes round again for a write during a pass, and bounds a wait", async () => {
    const kept: Promise<unknown>[] = [];
    let passes = 0;
    let release = () => {};
    const upkeep = new Upkeep(
      { background: (work) => kept.push(work) },
      async () => {
        passes++;
        if (passes === 1) await new Promise<void>((resolve) => (release = resolve));
        return { extractionFailed: passes === 2 };
      },
      0,
    );
    expect(await upkeep.settled(10)).toBe(true);
    upkeep.schedule();
    await new Promise((resolve) => setTimeout(resolve, 5));
    upkeep.schedule();
    upkeep.schedule();
    expect(kept).toHaveLength(1);
    // The first pass is held open: a bounded wait gives up.
    expect(await upkeep.settled(20)).toBe(false);
    release();
    expect(await upkeep.settled(1_000)).toBe(true);
    // Three schedules while one pass ran: one more pass, not three.
    expect(passes).toBe(2);
    expect(upkeep.extractionFailed).toBe(true);
    upkeep.schedule();
    await upkeep.settled(1_000);
    expect(passes).toBe(3);
    expect(upkeep.extractionFailed).toBe(false);
  });

  it("waits for writes to pause before a pass, unless a compile is waiting", async () => {
    let passes = 0;
    const upkeep = new Upkeep({ background: () => {} }, async () => {
      passes++;
      return { extractionFailed: false };
    });
    // A burst of writes within the quiet window: one pass, after the last.
    for (let i = 0; i < 5; i++) {
      upkeep.hold("write");
      upkeep.schedule();
      upkeep.release("write");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(passes).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(passes).toBe(1);
    // A compile does not wait for quiet: it starts the scheduled pass at once.
    upkeep.schedule();
    expect(await upkeep.settled(50)).toBe(true);
    expect(passes).toBe(2);
  });

  it("never starts a pass while a write is in progress, however long it takes", async () => {
    let passes = 0;
    const upkeep = new Upkeep({ background: () => {} }, async () => {
      passes++;
      return { extractionFailed: false };
    });
    upkeep.schedule();
    upkeep.hold();
    // Longer than the quiet window: the write holds the pass back.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(passes).toBe(0);
    upkeep.release();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(passes).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(passes).toBe(1);
  });

  it("works a backlog between a stream of reads, which never hold its start back", async () => {
    let passes = 0;
    const upkeep = new Upkeep({ background: () => {} }, async ({ idle }) => {
      await idle();
      passes++;
      return { extractionFailed: false };
    });
    upkeep.schedule();
    // Compiles back to back for longer than the quiet window, each briefly in flight.
    for (let i = 0; i < 10; i++) {
      upkeep.hold("read");
      await new Promise((resolve) => setTimeout(resolve, 15));
      upkeep.release("read");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(passes).toBe(1);
  });

  /**
   * An upkeep whose pass takes `before` slices, says it caught up, then takes `after` more; `slices`
   * counts those taken, `sliceSeenBy` sets a timer and reports how many were taken when it fired, and
   * `untilSlices` waits until that many are.
   */
  const slicedUpkeep = (before: number, after: number) => {
    let slices = 0;
    const upkeep = new Upkeep(
      { background: () => {} },
      async ({ idle, caughtUp }) => {
        for (let i = 0; i < before + after; i++) {
          if (i === before) caughtUp();
          await idle();
          slices++;
        }
        return { extractionFailed: false };
      },
      0,
    );
    const sliceSeenBy = () => {
      const seen = { at: -1 };
      setTimeout(() => {
        seen.at = slices;
      }, 0);
      return seen;
    };
    const untilSlices = async (count: number) => {
      while (slices < count) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    return { upkeep, slices: () => slices, sliceSeenBy, untilSlices };
  };

  it("gives the event loop a turn before each slice, so a timer set meanwhile fires between slices", async () => {
    const { upkeep, sliceSeenBy, untilSlices } = slicedUpkeep(0, 50);
    upkeep.schedule();
    await new Promise((resolve) => setTimeout(resolve, 0));
    const seen = sliceSeenBy();
    await untilSlices(50);
    expect(seen.at).toBeGreaterThanOrEqual(0);
    expect(seen.at).toBeLessThan(50);
  });

  it("gives no turns while a compile waits for the pass to catch up, and gives them again once it has", async () => {
    const { upkeep, slices, sliceSeenBy, untilSlices } = slicedUpkeep(20, 20);
    upkeep.schedule();
    const seen = sliceSeenBy();
    // The compile starts the pass and waits: every step before the catch-up runs before the timer.
    expect(await upkeep.settled(1_000)).toBe(true);
    expect(seen.at).toBe(-1);
    expect(slices()).toBe(20);
    // After it, the backlog gives turns again: a timer set now fires before the pass ends.
    const later = sliceSeenBy();
    await untilSlices(40);
    expect(later.at).toBeGreaterThanOrEqual(20);
    expect(later.at).toBeLessThan(40);
  });

  it("lets a waiting compile read once the pass caught up, and leaves a backlog to the round a write asks for", async () => {
    let rounds = 0;
    let inBacklog = false;
    const upkeep = new Upkeep(
      { background: () => {} },
      async ({ idle, caughtUp, anotherRound }) => {
        rounds++;
        caughtUp();
        // The first round's backlog (a bulk import's vectors) goes on until another round is asked for.
        inBacklog = rounds === 1;
        while (inBacklog && !anotherRound()) await idle();
        inBacklog = false;
        return { extractionFailed: false };
      },
      0,
    );
    upkeep.schedule();
    // Caught up: the compile reads while the backlog is still being worked.
    expect(await upkeep.settled(1_000)).toBe(true);
    expect(rounds).toBe(1);
    expect(inBacklog).toBe(true);
    // A write during the backlog: a compile now waits for the next round, which does not wait for the backlog.
    upkeep.schedule();
    expect(await upkeep.settled(1_000)).toBe(true);
    expect(rounds).toBe(2);
    expect(inBacklog).toBe(false);
  });

  it("survives a failing pass and runs the next one", async () => {
    let passes = 0;
    const upkeep = new Upkeep({ background: () => {} }, async () => {
      passes++;
      if (passes === 1) throw new Error("embedder down");
      return { extractionFailed: false };
    });
    upkeep.schedule();
    expect(await upkeep.settled(1_000)).toBe(true);
    upkeep.schedule();
    expect(await upkeep.settled(1_000)).toBe(true);
    expect(passes).toBe(2);
  });
});

describe("thread record", () => {
  it("is created once, then read-only, and owned only under its own tenant and thread", async () => {
    await withStorage((host) => {
      const records = new ThreadRecords(new ThreadMeta(host), clock);
      const identity = { user_id: "u1", authority: "employee" };
      const first = records.create("acme", "t1", { project_id: "p1", identity });
      expect(first.created).toBe(true);
      const again = records.create("acme", "t1", { project_id: "other", identity: { user_id: "u2" } });
      expect(again).toEqual({ created: false, thread: first.thread });
      // A fresh reader over the same storage sees the same record.
      const fresh = new ThreadRecords(new ThreadMeta(host), clock);
      expect(fresh.owned("acme", "t1")?.project_id).toBe("p1");
      expect(fresh.owned("globex", "t1")).toBeUndefined();
      expect(fresh.owned("acme", "t2")).toBeUndefined();
    });
  });
});

describe("layers", () => {
  it("upsert by key, keep history, count a redelivered write as a duplicate, and never let a late write win", async () => {
    await withStorage((host) => {
      const layers = new LayerStore(host);
      const write = (id: string, value: string, ts: number) => {
        const change = layers.append(
          prepareLayerWrite(
            { type: "fact", id, key: "deploy_target", value, layer: "environment", ts: second(ts) },
            countTokens,
          ),
          clock.now(),
        );
        if (change === "duplicate") return change;
        layers.appended([change]);
        return "upserted";
      };
      expect(write("e1", "staging", 10)).toBe("upserted");
      expect(write("e2", "production", 20)).toBe("upserted");
      expect(write("e2", "production", 20)).toBe("duplicate");
      // Older than the current value: kept as history, not current.
      expect(write("e0", "canary", 5)).toBe("upserted");
      expect(layers.entries("environment").map((e) => e.id)).toEqual(["e2"]);
      expect(layers.entries("environment", true).map((e) => e.id)).toEqual(["e0", "e1", "e2"]);
      // What extraction must not file as current again: replaced values, and overridden initial ones.
      expect(layers.replacedValues({ deploy_target: "laptop" }).sort()).toEqual([
        "canary",
        "laptop",
        "staging",
      ]);
      // A fresh store over the same storage reads the same state.
      expect(new LayerStore(host).entries("environment", true)).toEqual(layers.entries("environment", true));
    });
  });
});

describe("layers held between compiles", () => {
  it("stand after each write as a fresh read gives them, keep the versions a write left alone, and ignore a rolled-back write", async () => {
    await withStorage((host, state) => {
      const layers = new LayerStore(host);
      const fresh = () => new LayerStore(host);
      const layerNames = ["working", "environment"] as const;
      const batch = (writes: [id: string, layer: "working" | "environment", key: string, ts: number][]) =>
        state.storage.transactionSync(() => {
          const changes: LayerChange[] = [];
          for (const [id, layer, key, ts] of writes) {
            const change = layers.append(
              prepareLayerWrite(
                { type: "fact", id, key, value: `${key} as of ${id}`, layer, ts: second(ts) },
                countTokens,
              ),
              clock.now(),
            );
            if (change !== "duplicate") changes.push(change);
          }
          layers.appended(changes);
        });
      const same = () => {
        for (const layer of layerNames) {
          expect(layers.entries(layer, true)).toEqual(fresh().entries(layer, true));
          expect(layers.entries(layer)).toEqual(fresh().entries(layer));
        }
      };
      // Held before any write.
      for (const layer of layerNames) expect(layers.entries(layer, true)).toEqual([]);
      batch([
        ["w1", "working", "step", 10],
        ["w2", "working", "goal", 10],
        ["e1", "environment", "region", 10],
      ]);
      same();
      const before = layers.entries("working", true);
      // A new value of one key, in both layers at once.
      batch([
        ["w3", "working", "step", 20],
        ["e2", "environment", "region", 20],
      ]);
      same();
      const after = layers.entries("working", true);
      // The version no write touched is the very object held before; the replaced one is marked anew.
      expect(after.find((v) => v.id === "w2")).toBe(before.find((v) => v.id === "w2"));
      expect(after.find((v) => v.id === "w1")?.replacedBy).toBe("w3");
      // A late write (history, placed by its time), one placed between two keys of one instant, a tie
      // in time and key broken by insertion, keys beyond ASCII (ordered as SQLite orders them), and a
      // redelivery, in one transaction.
      batch([
        ["w4", "working", "step", 15],
        ["w5", "working", "ghost", 10],
        ["w6", "working", "step", 20],
        ["w7", "working", "\u{1F600}key", 30],
        ["w8", "working", "\uFF5Akey", 30],
        ["w3", "working", "step", 20],
      ]);
      same();
      // A write whose transaction rolls back leaves the held layers as they were.
      const held = layers.entries("working", true);
      expect(() =>
        state.storage.transactionSync(() => {
          layers.append(
            prepareLayerWrite(
              { type: "fact", id: "w9", key: "step", value: "lost", layer: "working", ts: second(40) },
              countTokens,
            ),
            clock.now(),
          );
          throw new Error("rolled back");
        }),
      ).toThrow("rolled back");
      expect(layers.entries("working", true)).toBe(held);
      same();
    });
  });
});

describe("transcript", () => {
  it("appends once per id, answers positions and times, and hands new turns to its held tail only once committed", async () => {
    await withStorage((host, state) => {
      const transcript = new Transcript(host, new ThreadMeta(host), new SqliteVectorIndex(host.sql));
      const identity = { user_id: "u1" };
      const turn = (id: string, n: number) =>
        ({
          type: "message",
          id,
          ts: second(n),
          role: "user",
          content: `Turn ${id} about the venue.`,
        }) as const;
      const append = (turns: ReturnType<typeof turn>[]) =>
        state.storage.transactionSync(() => {
          const result = transcript.append(prepareMessages(turns, countTokens), identity, countTokens);
          transcript.appended();
          return result;
        });
      expect(append([turn("a", 1), turn("b", 2)])).toEqual({ accepted: 2, duplicates: 0 });
      expect(append([turn("b", 2), turn("c", 3)])).toEqual({ accepted: 1, duplicates: 1 });
      expect(transcript.tail(2).map((m) => m.id)).toEqual(["b", "c"]);
      // A rolled-back append leaves neither rows nor held copies behind.
      expect(() =>
        state.storage.transactionSync(() => {
          transcript.append(prepareMessages([turn("ghost", 4)], countTokens), identity, countTokens);
          throw new Error("abort");
        }),
      ).toThrow("abort");
      expect(transcript.tail(2).map((m) => m.id)).toEqual(["b", "c"]);
      expect(transcript.count()).toBe(3);
      expect(transcript.last()).toEqual({ ts: second(3), id: "c" });
      // Arrival order, not time order: a late turn with an old time is after everything before it.
      append([turn("late", 0.5)]);
      const arrived = transcript.arrivedAfter(0, 10);
      // Read in time order, numbered in arrival order (a number a duplicate or rollback took is skipped).
      expect(arrived.map((m) => m.id)).toEqual(["late", "a", "b", "c"]);
      const seq = (id: string) => arrived.find((m) => m.id === id)?.seq ?? Number.NaN;
      expect(seq("a") < seq("b") && seq("b") < seq("c") && seq("c") < seq("late")).toBe(true);
      expect(transcript.arrivedAfter(seq("c"), 10).map((m) => m.id)).toEqual(["late"]);
      expect(transcript.countArrivedAfter(seq("a"))).toBe(3);
      expect(transcript.countArrivedAfter(0)).toBe(4);
      // A watermark kept as a (ts, id) position covers every message up to the first one after it.
      // c arrived after b; late arrived last, with a time before the position: both still to read.
      expect(transcript.countArrivedAfter(transcript.arrivedThrough({ ts: second(2), id: "b" }))).toBe(2);
      expect(transcript.arrivedThrough({ ts: second(9), id: "z" })).toBe(seq("late"));
      expect(transcript.messages(["c", "a", "missing"]).map((m) => m.id)).toEqual(["a", "c"]);
      expect([...transcript.timesOf(["c", "a", "missing"])]).toEqual([
        ["a", second(1)],
        ["c", second(3)],
      ]);
    });
  });

  it("says when each message was said the same way for a few ids and for many", async () => {
    await withStorage((host, state) => {
      const transcript = new Transcript(host, new ThreadMeta(host), new SqliteVectorIndex(host.sql));
      const turns = Array.from({ length: 1_200 }, (_, i) => ({
        type: "message" as const,
        id: `m${i}`,
        ts: second(i % 97),
        role: "user" as const,
        content: `Message ${i}`,
      }));
      state.storage.transactionSync(() => {
        transcript.append(prepareMessages(turns, countTokens), { user_id: "u1" }, countTokens);
        transcript.appended();
      });
      const ids = [...turns.map((t) => t.id), "missing"];
      const many = transcript.timesOf(ids);
      expect(many.size).toBe(1_200);
      const few = new Map<string, string>();
      for (let i = 0; i < ids.length; i += 500) {
        for (const [id, ts] of transcript.timesOf(ids.slice(i, i + 500))) few.set(id, ts);
      }
      expect(new Map([...many].sort())).toEqual(new Map([...few].sort()));
      expect(many.get("m98")).toBe(second(98 % 97));
    });
  });
});
