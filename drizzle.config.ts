import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: ["./src/facts/fact-schema.ts", "./src/traces/trace-schema.ts", "./src/entities/entity-schema.ts"],
  out: "./migrations",
});
