import type { Hook } from "@hono/zod-openapi";
import { validationProblem } from "./problem";

/** Every validation failure, on any route and any request part, becomes the same problem+json shape. */
// biome-ignore lint/suspicious/noExplicitAny: the hook is shared by routes with different schemas
export const validationHook: Hook<any, any, any, any> = (result) => {
  if (!result.success) throw validationProblem(result.error, result.target);
};
