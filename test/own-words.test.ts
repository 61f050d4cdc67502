import { describe, expect, it } from "vitest";
import { ask, message, newThread } from "./helpers";

/**
 * Issue 16, item 3: a user sees their own words. Permission and classification protect other users'
 * and other roles' content; they never hide a user's own turns from that user. Secrets in those turns
 * are still redacted for a caller without clearance, and the rest of the turn stays.
 */

const at = (minute: number) => new Date(Date.UTC(2025, 2, 3, 14, minute)).toISOString();
const EMPLOYEE = { user_id: "u-own", user_name: "Tomas", authority: "engineer" };

describe("a user sees their own words", () => {
  it("a code-bearing turn with a key in it stays visible to its author, the key redacted", async () => {
    const t = await newThread(EMPLOYEE);
    const code = [
      "Our retry budget is 7 attempts per chunk. Here is my uploader, it keeps timing out on large files:",
      "```js",
      "const client = new Uploader({ token: 'ghp_Zq81Lm4Np7Rt9Ws3Yb6HxK2v', chunkMb: 8 });",
      "await client.sendAll(queueOfParcels);",
      "```",
      "Can you make sendAll resume after a dropped chunk?",
    ].join("\n");
    await t.events([message(code, { id: "own-code", ts: at(1) })]);

    const ctx = await ask(t, "How do I make sendAll resume after a dropped chunk?");
    expect(ctx.reasonFor("own-code")).toBeUndefined();
    expect(ctx.context).toContain("await client.sendAll(queueOfParcels);");
    expect(ctx.context).not.toContain("ghp_Zq81Lm4Np7Rt9Ws3Yb6HxK2v");
    expect(ctx.trace.redactions).toBeDefined();
  });

  it("a turn the user marked restricted stays theirs, while what was read from it stays gated", async () => {
    const t = await newThread(EMPLOYEE);
    const marker = "[RESTRICTED: vendor terms restricted to VP+]";
    await t.events([
      message(`${marker} Our exit fee with Halvard Freight is $18,500.`, { id: "own-marked", ts: at(1) }),
      // The same marking on someone else's words in the thread protects them from this user.
      message(`${marker} The renewal cap with Halvard Freight is $7,250.`, {
        id: "colleague-marked",
        ts: at(2),
        speaker: "Ines",
      }),
    ]);

    const ctx = await ask(t, "What are our terms with Halvard Freight?");
    expect(ctx.context).toContain("$18,500");
    expect(ctx.context).not.toContain("$7,250");
    expect(ctx.reasonFor("colleague-marked")).toBe("not_permitted");
    expect(ctx.reasonFor("own-marked")).toBeUndefined();
    // The fact read from it is still the VP+ audience's: bounded to what the user typed themselves.
    const gatedFacts = ctx.trace.omitted.filter(
      (o: any) => o.object_id.startsWith(`xt:${t.thread}:own-marked:`) && o.reason === "not_permitted",
    );
    expect(gatedFacts.length).toBeGreaterThan(0);
  });

  it("a secret classifies the statement it is in, not the whole turn, nor the reply that repeats the rest", async () => {
    const t = await newThread(EMPLOYEE);
    await t.events([
      message("The upload limit is 250 MB per file. The signing secret is whsec_4Rk9Tq2Lw8Zp6Nd3.", {
        id: "mixed",
        ts: at(1),
      }),
      message("Understood: the upload limit is 250 MB per file.", {
        id: "reply",
        ts: at(2),
        role: "assistant",
      }),
    ]);

    const ctx = await ask(t, "What is the upload limit?");
    expect(ctx.context).not.toContain("whsec_4Rk9Tq2Lw8Zp6Nd3");
    expect(ctx.reasonFor(`xt:${t.thread}:mixed:secret`)).toBe("not_permitted");
    expect(ctx.reasonFor(`xt:${t.thread}:mixed:upload_limit`)).toBeUndefined();
    expect(ctx.trace.compiled.map((c: any) => c.object_id)).toContain(`xt:${t.thread}:mixed:upload_limit`);
    expect(ctx.reasonFor("reply")).toBeUndefined();
    expect(ctx.context).toContain("Understood: the upload limit is 250 MB per file.");
  });
});
