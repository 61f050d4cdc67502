import { OpenAPIHono } from "@hono/zod-openapi";
import type { Env } from "../env";
import { sendBackfill } from "../extraction/jobs";
import { ProblemError } from "../http/problem";
import { validationHook } from "../http/validation-hook";
import type { TenantVariables } from "../tenancy/authenticate";
import type { Outcome } from "../thread/thread-rpc";
import { threadStub } from "../thread/thread-stub";
import { maxFutureMs, refuseFarFuture } from "./future-timestamps";
import { DEFAULT_BACKFILL_MESSAGES } from "./schemas/entities";
import {
  getExpand,
  getExtractions,
  getMessage,
  getState,
  postContext,
  postEvents,
  postMentionBackfill,
  putThread,
} from "./threads.routes";

type AppEnv = { Bindings: Env; Variables: TenantVariables };

function unwrap<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw new ProblemError(outcome.status, outcome.title, outcome.detail);
  return outcome.value;
}

export const threadRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(putThread, async (c) => {
    const tenant = c.get("tenant").name;
    const { thread } = c.req.valid("param");
    const result = await threadStub(c.env, tenant, thread).create(tenant, thread, c.req.valid("json"));
    return c.json(result.thread, result.created ? 201 : 200);
  })
  .openapi(postEvents, async (c) => {
    const tenant = c.get("tenant").name;
    const { thread } = c.req.valid("param");
    const { events } = c.req.valid("json");
    refuseFarFuture(events, Date.now(), maxFutureMs(c.env.MAX_FUTURE_HOURS));
    const outcome = await threadStub(c.env, tenant, thread).ingest(tenant, thread, events);
    return c.json(unwrap(outcome), 200);
  })
  .openapi(postContext, async (c) => {
    const tenant = c.get("tenant").name;
    const { thread } = c.req.valid("param");
    const outcome = await threadStub(c.env, tenant, thread).compile(tenant, thread, c.req.valid("json"));
    return c.json(unwrap(outcome), 200);
  })
  .openapi(getState, async (c) => {
    const tenant = c.get("tenant").name;
    const { thread } = c.req.valid("param");
    const outcome = await threadStub(c.env, tenant, thread).state(tenant, thread);
    return c.json(unwrap(outcome) as never, 200);
  })
  .openapi(getExtractions, async (c) => {
    const tenant = c.get("tenant").name;
    const { thread } = c.req.valid("param");
    return c.json(unwrap(await threadStub(c.env, tenant, thread).extractions(tenant, thread)) as never, 200);
  })
  .openapi(getExpand, async (c) => {
    const tenant = c.get("tenant").name;
    const { thread, uid } = c.req.valid("param");
    return c.json(unwrap(await threadStub(c.env, tenant, thread).expand(tenant, thread, uid)) as never, 200);
  })
  .openapi(postMentionBackfill, async (c) => {
    const tenant = c.get("tenant").name;
    const { thread } = c.req.valid("param");
    const body = c.req.valid("json");
    const options = { limit: body.limit ?? DEFAULT_BACKFILL_MESSAGES, restart: body.restart ?? false };
    const report = unwrap(await threadStub(c.env, tenant, thread).backfillMentions(tenant, thread, options));
    let queued = false;
    if (body.background && !report.done) {
      // What is left goes on through the queue; a failed send leaves the operator to call again.
      queued = await sendBackfill(c.env.EXTRACTION_QUEUE, tenant, thread).then(
        () => true,
        (error) => {
          console.error("could not queue the mention back-fill", tenant, thread, error);
          return false;
        },
      );
    }
    return c.json({ ...report, queued }, 200);
  })
  .openapi(getMessage, async (c) => {
    const tenant = c.get("tenant").name;
    const { thread, message } = c.req.valid("param");
    const { part } = c.req.valid("query");
    return c.json(
      unwrap(await threadStub(c.env, tenant, thread).message(tenant, thread, message, part)),
      200,
    );
  });
