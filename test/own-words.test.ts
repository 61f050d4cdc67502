import { describe, expect, it } from "vitest";
import { message, newThread } from "./helpers";

/**
 * Issue 16, item 3: a user sees their own words. Permission and classification protect other users'
 * and other roles' content; they never hide a user's own turns from that user. Secrets in those turns
 * are still redacted for a caller without clearance, and the rest of the turn stays.
 */

const at = (minute: number) => new Date(Date.UTC(2025, 2, 3, 14, minute)).toISOString();
const EMPLOYEE = { user_id: "u-own", user_name: "Tomas", authority: "engineer" };
const omittedIds = (ctx: any, reason: string) =>
  ctx.json.trace.omitted.filter((o: any) => o.reason === reason).map((o: any) => o.object_id);

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

    const ctx = await t.context({ query: "How do I make sendAll resume after a dropped chunk?" });
    expect(ctx.status).toBe(200);
    expect(omittedIds(ctx, "not_permitted")).not.toContain("own-code");
    expect(ctx.json.context).toContain("await client.sendAll(queueOfParcels);");
    expect(ctx.json.context).not.toContain("ghp_Zq81Lm4Np7Rt9Ws3Yb6HxK2v");
    expect(ctx.json.trace.redactions).toBeDefined();
  });

  it("a turn the user marked restricted stays theirs, while what was read from it stays gated", async () => {
    const t = await newThread(EMPLOYEE);
    await t.events([
      message("[RESTRICTED: vendor terms restricted to VP+] Our exit fee with Halvard Freight is $18,500.", {
        id: "own-marked",
        ts: at(1),
      }),
      // The same words from someone else in the thread are theirs to protect.
      message(
        "[RESTRICTED: vendor terms restricted to VP+] The renewal cap with Halvard Freight is $7,250.",
        {
          id: "colleague-marked",
          ts: at(2),
          speaker: "Ines",
        },
      ),
    ]);

    const ctx = await t.context({ query: "What are our terms with Halvard Freight?" });
    expect(ctx.json.context).toContain("$18,500");
    expect(ctx.json.context).not.toContain("$7,250");
    const hidden = omittedIds(ctx, "not_permitted");
    expect(hidden).toContain("colleague-marked");
    expect(hidden).not.toContain("own-marked");
    // The fact read from it is still the VP+ audience's: bounded to what the user typed themselves.
    expect(hidden.some((id: string) => id.startsWith("x:own-marked:"))).toBe(true);
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

    const ctx = await t.context({ query: "What is the upload limit?" });
    expect(ctx.json.context).not.toContain("whsec_4Rk9Tq2Lw8Zp6Nd3");
    const hidden = omittedIds(ctx, "not_permitted");
    expect(hidden).toContain("x:mixed:secret");
    expect(hidden).not.toContain("x:mixed:upload_limit");
    expect(hidden).not.toContain("reply");
    expect(ctx.json.context).toContain("Understood: the upload limit is 250 MB per file.");
  });
});
