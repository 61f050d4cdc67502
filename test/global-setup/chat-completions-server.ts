import { createServer, type Server } from "node:http";
import type { TestProject } from "vitest/node";

/**
 * A local server that speaks the chat-completions protocol, for the LLM extractor's tests. The model
 * name picks the behaviour, so each test states the scenario it exercises.
 */
const REPLIES: Record<string, (refs: string[]) => string> = {
  valid: (refs) =>
    JSON.stringify([
      {
        type_tag: "decision",
        text: "Use Redis for caching",
        status: "active",
        confidence: "high",
        topic_tags: ["caching"],
        refs,
        supersedes: null,
        conflict: false,
      },
      { type_tag: "opinion", text: "Not a type", status: "active", refs },
      {
        type_tag: "action",
        text: "Run migration 025",
        status: "weird",
        confidence: "low",
        topic_tags: [],
        refs,
      },
    ]),
  fenced: (refs) =>
    `Here you go:\n\`\`\`json\n[{"type_tag":"risk","text":"No rate limiting","status":"active","confidence":"medium","topic_tags":["security"],"refs":${JSON.stringify(refs)},"supersedes":null,"conflict":false}]\n\`\`\``,
  malformed: () => "[{ this is not json",
  "invented-refs": () =>
    JSON.stringify([
      {
        type_tag: "decision",
        text: "Use Postgres",
        status: "active",
        refs: ["msg_invented"],
        topic_tags: [],
      },
    ]),
};

let server: Server | undefined;

export async function setup(project: TestProject): Promise<void> {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      const payload = JSON.parse(body || "{}") as { model?: string; messages?: { content: string }[] };
      const model = payload.model ?? "";
      const refs = [...(payload.messages?.at(-1)?.content.matchAll(/^\[([^\]]+)\] /gm) ?? [])]
        .map((m) => m[1] ?? "")
        .filter((id) => !id.includes("_") || id.startsWith("m"));
      if (model === "rate-limited") return void response.writeHead(429).end('{"error":"slow down"}');
      if (model === "broken") return void response.writeHead(500).end('{"error":"boom"}');
      if (model === "slow") return void setTimeout(() => response.writeHead(200).end("{}"), 2_000);
      const reply = REPLIES[model]?.(refs) ?? "[]";
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ choices: [{ message: { role: "assistant", content: reply } }] }));
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  project.provide("chatCompletionsUrl", `http://127.0.0.1:${port}/v1/chat/completions`);
}

export async function teardown(): Promise<void> {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
}
