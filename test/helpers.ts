import { env, SELF } from "cloudflare:test";

export const KEYS = {
  dev: "local-dev-key",
  acme: "acme-test-key",
  globex: "globex-test-key",
  initech: "initech-test-key",
  umbrella: "umbrella-test-key",
} as const;

type TenantName = keyof typeof KEYS;

export async function call(
  method: string,
  path: string,
  body?: unknown,
  options: { tenant?: TenantName; key?: string | null } = {},
): Promise<{ status: number; contentType: string; json: any }> {
  const tenant = options.tenant ?? "acme";
  const key = options.key === undefined ? KEYS[tenant] : options.key;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key) headers.authorization = `Bearer ${key}`;
  const url =
    path.startsWith("/v1") || !/^\/(?:threads|facts|entities)\b/.test(path)
      ? path
      : `/v1/tenants/${tenant}${path}`;
  const response = await SELF.fetch(`https://tenure.test${url}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get("content-type") ?? "",
    json: text ? JSON.parse(text) : null,
  };
}

let counter = 0;
/** A fresh thread in its own project, so tests in one file never see each other's facts. */
export async function newThread(
  identity: Record<string, unknown> = { user_id: "u1", user_name: "Ada", authority: "employee" },
  options: {
    tenant?: TenantName;
    project?: string;
    thread?: string;
    environment?: Record<string, unknown>;
  } = {},
) {
  counter++;
  const thread = options.thread ?? `t-${counter}-${Math.random().toString(36).slice(2, 8)}`;
  const project = options.project ?? `p-${thread}`;
  const res = await call(
    "PUT",
    `/threads/${thread}`,
    { project_id: project, identity, environment: options.environment },
    { tenant: options.tenant },
  );
  if (res.status !== 201) throw new Error(`thread create failed: ${res.status} ${JSON.stringify(res.json)}`);
  return {
    thread,
    project,
    events: (events: unknown[]) =>
      call("POST", `/threads/${thread}/events`, { events }, { tenant: options.tenant }),
    context: (body: Record<string, unknown>) =>
      call("POST", `/threads/${thread}/context`, body, { tenant: options.tenant }),
  };
}

/** A thread's compile for `query`: the context, and why an object was left out (undefined: it was not). */
export async function ask(
  t: Awaited<ReturnType<typeof newThread>>,
  query: string,
  extra: Record<string, unknown> = {},
) {
  const ctx = await t.context({ query, ...extra });
  if (ctx.status !== 200) throw new Error(`compile failed: ${ctx.status} ${JSON.stringify(ctx.json)}`);
  const omitted = new Map<string, string>(ctx.json.trace.omitted.map((o: any) => [o.object_id, o.reason]));
  return {
    context: ctx.json.context as string,
    trace: ctx.json.trace,
    reasonFor: (id: string) => omitted.get(id),
  };
}

export const fact = (key: string, value: unknown, extra: Record<string, unknown> = {}) => ({
  type: "fact",
  key,
  value,
  ...extra,
});
export const message = (content: string, extra: Record<string, unknown> = {}) => ({
  type: "message",
  role: "user",
  content,
  ...extra,
});

/** Reads until `done` holds (every 50 ms), or the time runs out; returns the last value read. */
export async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

/** A project's fact revision as the tenant's D1 holds it (0 before its first write). */
export async function revisionOf(project: string): Promise<number> {
  const row = await env.TENANT_ACME_DB.prepare("SELECT revision FROM fact_revisions WHERE project_id = ?")
    .bind(project)
    .first<{ revision: number }>();
  return row?.revision ?? 0;
}

/**
 * A D1 database that counts what is asked of it: `statements`, every statement prepared or batch sent,
 * and `rows`, the rows its batches hand back. A read said to need no D1 leaves `statements` at 0.
 */
export function countingDatabase(database: D1Database): {
  database: D1Database;
  reads: { statements: number; rows: number };
} {
  const reads = { statements: 0, rows: 0 };
  const counted = new Proxy(database, {
    get(target, property) {
      if (property === "batch") {
        return async (statements: D1PreparedStatement[]) => {
          reads.statements++;
          const results = await target.batch(statements);
          reads.rows += results.reduce((n, r) => n + (r.results?.length ?? 0), 0);
          return results;
        };
      }
      if (property === "prepare") {
        return (query: string) => {
          reads.statements++;
          return target.prepare(query);
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { database: counted, reads };
}
