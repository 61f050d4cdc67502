import { createRoute, z } from "@hono/zod-openapi";
import { emptyBodyAsObject } from "../http/empty-body";
import { bodyErrors, invalidInput, json, problem, security, storageFull, unauthorized } from "./route-parts";
import { ContextBody, ContextResponse } from "./schemas/context";
import { MentionBackfillBody, MentionBackfillResult } from "./schemas/entities";
import { IngestBody, IngestResult } from "./schemas/events";
import {
  CreateThreadBody,
  ExpandedItemView,
  ExtractionLogView,
  MessageParams,
  MessagePartQuery,
  MessageViewSchema,
  ThreadParams,
  ThreadState,
  ThreadView,
} from "./schemas/threads";

const errors = {
  400: invalidInput,
  401: unauthorized,
  404: problem("Unknown thread"),
};

export const putThread = createRoute({
  method: "put",
  path: "/threads/{thread}",
  summary: "Create a thread, or return it if it exists",
  security,
  request: {
    params: ThreadParams,
    body: { content: { "application/json": { schema: CreateThreadBody } }, required: true },
  },
  responses: {
    200: json(ThreadView, "The thread already existed"),
    201: json(ThreadView, "The thread was created"),
    ...errors,
    ...bodyErrors,
    ...storageFull,
  },
});

export const postEvents = createRoute({
  method: "post",
  path: "/threads/{thread}/events",
  summary: "Ingest 1 to 500 messages and facts, idempotently by event id",
  security,
  request: {
    params: ThreadParams,
    body: { content: { "application/json": { schema: IngestBody } }, required: true },
  },
  responses: {
    200: json(IngestResult, "Applied; repeats are counted as duplicates"),
    ...errors,
    409: problem(
      "Other writers kept replacing the facts the batch writes; nothing was stored, send it again",
    ),
    413: problem(
      "The body is over the size limit, or a message's content is over 1 MiB of text (1,048,576 characters); `errors` names the field, e.g. `events.3.content`",
    ),
    ...storageFull,
  },
});

export const postContext = createRoute({
  method: "post",
  path: "/threads/{thread}/context",
  summary: "Compile the context envelope for a query",
  security,
  request: {
    params: ThreadParams,
    body: { content: { "application/json": { schema: ContextBody } }, required: true },
  },
  responses: { 200: json(ContextResponse, "The compiled context and its trace"), ...errors, ...bodyErrors },
});

export const getState = createRoute({
  method: "get",
  path: "/threads/{thread}/state",
  summary: "Current facts, working set, environment and watermark",
  security,
  request: { params: ThreadParams },
  responses: { 200: json(ThreadState, "The thread's state"), ...errors },
});

export const getExtractions = createRoute({
  method: "get",
  path: "/threads/{thread}/extractions",
  summary: "The extraction log: one ExtractResult per run, dead-lettered jobs, the watermark",
  security,
  request: { params: ThreadParams },
  responses: { 200: json(ExtractionLogView, "Newest run first"), ...errors },
});

export const getExpand = createRoute({
  method: "get",
  path: "/threads/{thread}/state/items/{uid}/expand",
  summary: "EXPAND: a state item with the source messages it keeps (its first and newest, 64 at most)",
  security,
  request: {
    params: ThreadParams.extend({
      uid: z
        .string()
        .min(1)
        .max(64)
        .openapi({ param: { name: "uid", in: "path" } }),
    }),
  },
  responses: { 200: json(ExpandedItemView, "The item and the source messages it keeps"), ...errors },
});

export const getMessage = createRoute({
  method: "get",
  path: "/threads/{thread}/messages/{message}",
  summary: "One message, or one of its passages: where a context's excerpt pointer leads",
  security,
  request: { params: MessageParams, query: MessagePartQuery },
  responses: {
    200: json(MessageViewSchema, "The message, its passage count and the passage asked for"),
    400: invalidInput,
    401: unauthorized,
    404: problem("Unknown thread, message or part"),
  },
});

export const postMentionBackfill = createRoute({
  method: "post",
  path: "/threads/{thread}/entities/backfill",
  summary:
    "Operator: read the mentions of messages extracted before they were read, and bind weak mentions of names an entity took since",
  security,
  // Every field is optional, so no body at all asks for the defaults, as `{}` does.
  middleware: [emptyBodyAsObject] as const,
  request: {
    params: ThreadParams,
    body: { content: { "application/json": { schema: MentionBackfillBody } }, required: false },
  },
  responses: {
    200: json(MentionBackfillResult, "What this call read and added; call again while `done` is false"),
    ...errors,
    ...bodyErrors,
    503: problem("The project's registry could not be read or written; what was read is kept, call again"),
    ...storageFull,
  },
});
