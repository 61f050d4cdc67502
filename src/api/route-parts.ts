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
