import { z } from "@hono/zod-openapi";

export const DatabaseCapacityView = z
  .object({
    binding: z.string().openapi({ description: "The D1 binding's name in wrangler.toml." }),
    home: z
      .boolean()
      .openapi({ description: "The tenant's home database, which keeps the project directory." }),
    open: z.boolean().openapi({
      description:
        "Whether it takes new projects by configuration: not in `closed_dbs`, or the newest when all are.",
    }),
    size_bytes: z.number().int().openapi({ description: "Its size as D1 reports it after a statement." }),
    limit_bytes: z.number().int().openapi({
      description: "The tenant's `db_limit_bytes`: 10 GB (D1 on Workers Paid) unless configured.",
    }),
    share: z.number().openapi({ description: "size_bytes / limit_bytes." }),
    state: z.enum(["ok", "filling", "full"]).openapi({
      description:
        "`filling` from 80% of the limit: it takes no new project while another open database has room. " +
        "`full` from 95%: writes to its projects may soon fail.",
    }),
    projects: z.number().int().openapi({
      description: "Projects placed on it (0 for a tenant of one database, which keeps no directory).",
    }),
  })
  .openapi("DatabaseCapacity");

export const CapacityView = z
  .object({
    databases: z
      .array(DatabaseCapacityView)
      .openapi({ description: "Every database of the tenant, home first." }),
    advice: z.array(z.string()).openapi({
      description: "What an operator should run now (add a database, close a full one); empty when nothing.",
    }),
  })
  .openapi("Capacity");
