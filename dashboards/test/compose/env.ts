/** Where the running docker-compose demo is, as scripts/compose-test.sh passes it (the only env reader here). */
import { z } from "zod";

const schema = z.object({
  UNTORN_COMPOSE_PROMETHEUS_URL: z.url(),
  UNTORN_COMPOSE_WEB_URL: z.url(),
  UNTORN_COMPOSE_VIEWER_TOKEN: z.string().min(32),
});

export interface ComposeDemo {
  prometheusUrl: string;
  webUrl: string;
  viewerToken: string;
}

export function composeDemo(): ComposeDemo {
  const r = schema.safeParse(process.env);
  if (!r.success)
    throw new Error(
      `run through \`npm run test:compose\` (scripts/compose-test.sh), which starts the demo and sets ${r.error.issues
        .map((i) => i.path.join("."))
        .join(", ")}`,
    );
  return {
    prometheusUrl: r.data.UNTORN_COMPOSE_PROMETHEUS_URL,
    webUrl: r.data.UNTORN_COMPOSE_WEB_URL,
    viewerToken: r.data.UNTORN_COMPOSE_VIEWER_TOKEN,
  };
}
