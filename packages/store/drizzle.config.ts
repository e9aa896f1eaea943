import { defineConfig } from "drizzle-kit";

// DRIZZLE_OUT lets the drift test generate into a scratch copy of migrations/.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/schema.ts",
  out: process.env["DRIZZLE_OUT"] ?? "./migrations",
});
