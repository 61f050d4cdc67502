import { Problem } from "./schemas/problems";

/** The pieces every route declaration shares: response shapes, the bearer scheme, common errors. */

export const json = <T>(schema: T, description: string) => ({
  content: { "application/json": { schema } },
  description,
});

export const problem = (description: string) => ({
  content: { "application/problem+json": { schema: Problem } },
  description,
});

export const security = [{ bearer: [] }];

export const invalidInput = problem("Invalid input; `errors` names each offending field");
export const unauthorized = problem(
  "Missing or wrong tenant key, or unknown tenant (the two are not told apart)",
);

/** What a route that writes may answer when its store is full (src/tenancy/storage-full.ts). */
export const storageFull = {
  507: problem(
    "The project's database or the thread's storage is full; `detail` says which and what of the request was stored (reads and compiles go on)",
  ),
};

/** What a route that takes a JSON body may also answer (src/http/body-limits.ts, the JSON validator). */
export const bodyErrors = {
  413: problem("The body is over the size limit (MAX_BODY_BYTES, 8 MiB by default)"),
  415: problem("The body is not sent as application/json"),
};
