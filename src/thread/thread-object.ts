import { DurableObject } from "cloudflare:workers";
import { monotonicFactory, ulid } from "ulid";
import type {
  ContextInput,
  ContextOutput,
  CreateThreadInput,
  EventInput,
  FactEventInput,
  IngestOutput,
  MessageEventInput,
  StoredFactView,
  WatermarkView,
} from "../api/schemas";
import { compileContext, MESSAGE_TAIL } from "../compiler/compile";
import type { LayerEntry, MessageRecord } from "../compiler/types";
import type { Env } from "../env";
import { DEFAULT_AUTHORITY_LADDER } from "../facts/authority";
import { FactRepository } from "../facts/fact-repository";
import { toFactView } from "../facts/fact-view";
import { readMarkers } from "../facts/markers";
import { planFactWrites } from "../facts/plan-writes";
import { prepareFact, renderFactLine, valueText } from "../facts/prepare-fact";
import { toInstant } from "../facts/time";
import { lookupTenant } from "../tenancy/registry";
import { loadTokenCounter } from "../tokens/count-tokens";
import { type LayerName, THREAD_SCHEMA, type ThreadRecord } from "./thread-schema";

export type Outcome<T> =
  | { ok: true; value: T }
  | { ok: false; status: 404 | 409; title: string; detail: string };

export interface ThreadStateValue {
  thread: ThreadView;
  facts: StoredFactView[];
  working_set: { key: string; value: unknown; ts: string; expires_at: string | null }[];
  environment_facts: { key: string; value: unknown; ts: string }[];
  message_count: number;
  watermark: WatermarkView;
}

type ThreadView = Omit<ThreadRecord, "created_at">;

/** The object's RPC surface, as the Worker calls it. */
export type ThreadRpc = Pick<ThreadObject, "create" | "ingest" | "compile" | "state">;

type Stamped<T> = T & { id: string; ts: string };

const notFound = (thread: string) =>
  ({
    ok: false,
    status: 404,
    title: "Thread not found",
    detail: `Create thread '${thread}' with PUT first.`,
  }) as const;

/**
 * One object per (tenant, thread). It owns the thread's identity, environment, messages, working set,
 * environment-layer facts and extraction watermark, and is the single writer for facts written through
 * the thread, so a chain of supersessions within a thread never races with itself.
 */
export class ThreadObject extends DurableObject<Env> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    for (const statement of THREAD_SCHEMA) this.sql.exec(statement);
  }

  private record(): ThreadRecord | undefined {
    const row = this.sql.exec<{ v: string }>("SELECT v FROM meta WHERE k = 'thread'").toArray()[0];
    return row ? (JSON.parse(row.v) as ThreadRecord) : undefined;
  }

  /** The object's name is derived from the tenant, and it checks the tenant again on every call. */
  private owned(tenant: string, thread: string): ThreadRecord | undefined {
    const record = this.record();
    return record && record.tenant === tenant && record.thread === thread ? record : undefined;
  }

  async create(
    tenant: string,
    thread: string,
    input: CreateThreadInput,
  ): Promise<{ created: boolean; thread: ThreadView }> {
    const existing = this.record();
    if (existing) return { created: false, thread: viewOf(existing) };
    const record: ThreadRecord = {
      tenant,
      thread,
      project_id: input.project_id,
      identity: input.identity,
      environment: input.environment ?? {},
      created_at: new Date().toISOString(),
    };
    this.sql.exec("INSERT INTO meta (k, v) VALUES ('thread', ?)", JSON.stringify(record));
    return { created: true, thread: viewOf(record) };
  }

  async ingest(tenant: string, thread: string, events: EventInput[]): Promise<Outcome<IngestOutput>> {
    return this.ctx.blockConcurrencyWhile(async () => {
      const record = this.owned(tenant, thread);
      if (!record) return notFound(thread);
      const receivedAt = new Date().toISOString();
      // Monotonic ids keep server-assigned events in arrival order when their timestamps tie.
      const nextId = monotonicFactory();
      const stamped = events
        .map((e) => ({ ...e, id: e.id ?? nextId(), ts: e.ts ? toInstant(e.ts) : receivedAt }))
        .sort((a, b) => a.ts.localeCompare(b.ts) || a.id.localeCompare(b.id));

      const countTokens = await loadTokenCounter();
      const seen = new Set<string>();
      let duplicates = 0;
      const fresh: typeof stamped = [];
      for (const event of stamped) {
        const identity = `${event.type}:${event.id}`;
        if (seen.has(identity)) duplicates++;
        else fresh.push(event);
        seen.add(identity);
      }
      const messages = fresh.filter((e): e is Stamped<MessageEventInput> => e.type === "message");
      const factEvents = fresh.filter((e): e is Stamped<FactEventInput> => e.type === "fact");
      const persistent = factEvents.filter((f) => (f.layer ?? "persistent") === "persistent");
      const layered = factEvents.filter((f) => f.layer === "working" || f.layer === "environment");

      const tenantEntry = lookupTenant(this.env, tenant);
      if (!tenantEntry) return { ok: false, status: 404, title: "Unknown tenant", detail: tenant };
      const repository = new FactRepository(tenantEntry.database);
      const writer = {
        projectId: record.project_id,
        threadId: thread,
        identity: record.identity,
        ladder: tenantEntry.authority_ladder ?? DEFAULT_AUTHORITY_LADDER,
        receivedAt,
        countTokens,
      };
      const rows = persistent.map((f) => prepareFact(f, writer));
      const factOutcomes: IngestOutput["facts"] = [];
      if (rows.length) {
        const existing = await repository.loadForPlanning(
          record.project_id,
          rows.flatMap((r) => [
            r.id,
            ...(r.supersedes ? [r.supersedes] : []),
            ...(JSON.parse(r.dependsOnJson) as string[]),
          ]),
          rows.flatMap((r) => [
            r.key,
            ...(r.supersedes ? [r.supersedes] : []),
            ...(JSON.parse(r.dependsOnJson) as string[]),
          ]),
        );
        const plan = planFactWrites(existing, rows, receivedAt);
        await repository.apply(record.project_id, plan);
        for (const o of plan.outcomes) {
          factOutcomes.push(o);
          if (o.outcome === "duplicate") duplicates++;
        }
      }

      let accepted = 0;
      this.ctx.storage.transactionSync(() => {
        for (const m of messages) {
          const line = `[${m.ts}] ${m.speaker ? `${m.speaker} (${m.role})` : m.role}: ${m.content}`;
          const cursor = this.sql.exec(
            "INSERT INTO messages (id, ts, role, speaker, content, line, tokens) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
            m.id,
            m.ts,
            m.role,
            m.speaker ?? null,
            m.content,
            line,
            countTokens(line),
          );
          if (cursor.rowsWritten > 0) accepted++;
          else duplicates++;
        }
        for (const f of layered) {
          const inserted = this.sql.exec(
            "INSERT INTO event_ledger (id, kind, received_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING",
            f.id,
            `fact:${f.layer}`,
            receivedAt,
          );
          if (inserted.rowsWritten === 0) {
            duplicates++;
            factOutcomes.push({ id: f.id, key: f.key, outcome: "duplicate", supersedes: null, reason: null });
            continue;
          }
          this.upsertLayer(f.layer as LayerName, f, countTokens);
          accepted++;
          factOutcomes.push({ id: f.id, key: f.key, outcome: "upserted", supersedes: null, reason: null });
        }
      });
      accepted += factOutcomes.filter((o) => o.outcome !== "duplicate" && o.outcome !== "upserted").length;
      return {
        ok: true,
        value: { accepted, duplicates, watermark: this.watermark(), facts: factOutcomes },
      } as const;
    });
  }

  /** Working-set and environment entries are upserted by key; an older write never replaces a newer one. */
  private upsertLayer(
    layer: LayerName,
    f: Stamped<FactEventInput>,
    countTokens: (text: string) => number,
  ): void {
    const markers = readMarkers(valueText(f.value));
    const content = renderFactLine(f.key, f.value, f.is_constraint ?? false, f.constraint_type ?? null);
    const scope = f.scope ?? markers.scope ?? (layer === "working" ? "session" : "global");
    const scopeId = f.scope_id ?? markers.scopeLabel ?? null;
    const current = this.sql
      .exec<{ id: string; ts: string }>(
        "SELECT id, ts FROM layer_versions WHERE layer = ? AND key = ? AND replaced_by IS NULL",
        layer,
        f.key,
      )
      .toArray()[0];
    // A late-arriving older write is kept as history; it never displaces a newer value.
    const arrivesLate = current !== undefined && f.ts < current.ts;
    if (current && !arrivesLate) {
      this.sql.exec(
        "UPDATE layer_versions SET replaced_by = ? WHERE layer = ? AND id = ?",
        f.id,
        layer,
        current.id,
      );
    }
    this.sql.exec(
      `INSERT INTO layer_versions (layer, id, key, value_json, content, tokens, ts, expires_at, scope, scope_id,
         classification, allow_roles_json, deny_roles_json, replaced_by)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      layer,
      f.id,
      f.key,
      JSON.stringify(f.value),
      content,
      countTokens(content),
      f.ts,
      f.valid_until ? toInstant(f.valid_until) : null,
      scope,
      scopeId,
      f.classification ?? markers.classification ?? "public",
      JSON.stringify(f.allow_roles ?? markers.allowRoles ?? []),
      JSON.stringify(f.deny_roles ?? []),
      arrivesLate ? current.id : null,
    );
  }

  private watermark(): WatermarkView {
    const last = this.sql
      .exec<{ ts: string; id: string }>("SELECT ts, id FROM messages ORDER BY ts DESC, id DESC LIMIT 1")
      .toArray()[0];
    const extractedRow = this.sql
      .exec<{ v: string }>("SELECT v FROM meta WHERE k = 'extracted_through'")
      .toArray()[0];
    const extracted = extractedRow ? (JSON.parse(extractedRow.v) as { ts: string; id: string }) : null;
    const pending = extracted
      ? this.sql
          .exec<{ n: number }>(
            "SELECT count(*) AS n FROM messages WHERE ts > ? OR (ts = ? AND id > ?)",
            extracted.ts,
            extracted.ts,
            extracted.id,
          )
          .one().n
      : this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM messages").one().n;
    return {
      last_message: last ? { ts: last.ts, id: last.id } : null,
      extracted_through: extracted,
      pending_messages: pending,
    };
  }

  /** Entries of a layer: current ones only, or every version when the compiler needs the history. */
  private layer(layer: LayerName, withHistory = false): LayerEntry[] {
    return this.sql
      .exec<Record<string, string | number | null>>(
        `SELECT * FROM layer_versions WHERE layer = ? ${withHistory ? "" : "AND replaced_by IS NULL"} ORDER BY ts, key`,
        layer,
      )
      .toArray()
      .map((r) => ({
        id: String(r.id),
        key: String(r.key),
        valueJson: String(r.value_json),
        content: String(r.content),
        tokens: Number(r.tokens),
        ts: String(r.ts),
        expiresAt: r.expires_at === null ? null : String(r.expires_at),
        scope: String(r.scope),
        scopeId: r.scope_id === null ? null : String(r.scope_id),
        classification: String(r.classification),
        allowRolesJson: String(r.allow_roles_json),
        denyRolesJson: String(r.deny_roles_json),
        replacedBy: r.replaced_by === null ? null : String(r.replaced_by),
      }));
  }

  async compile(tenant: string, thread: string, request: ContextInput): Promise<Outcome<ContextOutput>> {
    const record = this.owned(tenant, thread);
    if (!record) return notFound(thread);
    const tenantEntry = lookupTenant(this.env, tenant);
    if (!tenantEntry) return { ok: false, status: 404, title: "Unknown tenant", detail: tenant };
    const countTokens = await loadTokenCounter();
    const facts = await new FactRepository(tenantEntry.database).forCompile(
      record.project_id,
      record.identity.user_id,
    );
    const messages = this.sql
      .exec<MessageRecord & Record<string, SqlStorageValue>>(
        "SELECT id, ts, role, speaker, content, line, tokens FROM messages ORDER BY ts DESC, id DESC LIMIT ?",
        MESSAGE_TAIL,
      )
      .toArray()
      .reverse();
    const output = compileContext({
      query: request.query,
      budgetTokens: request.budget_tokens,
      factsShare: request.facts_share,
      now: request.now ? toInstant(request.now) : new Date().toISOString(),
      threadId: thread,
      taskId: request.task_id,
      requestRoles: request.roles,
      identity: record.identity,
      environment: record.environment,
      ladder: tenantEntry.authority_ladder ?? DEFAULT_AUTHORITY_LADDER,
      facts,
      working: this.layer("working", true),
      environmentFacts: this.layer("environment", true),
      messages,
      countTokens,
    });
    return { ok: true, value: { ...output, trace_id: ulid() } };
  }

  async state(tenant: string, thread: string): Promise<Outcome<ThreadStateValue>> {
    const record = this.owned(tenant, thread);
    if (!record) return notFound(thread);
    const tenantEntry = lookupTenant(this.env, tenant);
    if (!tenantEntry) return { ok: false, status: 404, title: "Unknown tenant", detail: tenant };
    const current = await new FactRepository(tenantEntry.database).currentInProject(record.project_id);
    const visible = current.filter((f) => f.userId === null || f.userId === record.identity.user_id);
    return {
      ok: true,
      value: {
        thread: viewOf(record),
        facts: visible.map(toFactView),
        working_set: this.layer("working").map((e) => ({
          key: e.key,
          value: JSON.parse(e.valueJson),
          ts: e.ts,
          expires_at: e.expiresAt,
        })),
        environment_facts: this.layer("environment").map((e) => ({
          key: e.key,
          value: JSON.parse(e.valueJson),
          ts: e.ts,
        })),
        message_count: this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM messages").one().n,
        watermark: this.watermark(),
      },
    };
  }
}

function viewOf(record: ThreadRecord): ThreadView {
  return {
    tenant: record.tenant,
    thread: record.thread,
    project_id: record.project_id,
    identity: record.identity,
    environment: record.environment,
  };
}
