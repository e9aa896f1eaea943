import { renderReportMarkdown } from "@untorn/rollout/report";
import { z } from "zod";
import type { ErrorResponse } from "../../../../../../lib/api-schema.js";
import { route } from "../../../../../../server/auth/access.js";
import { methodNotAllowed } from "../../../../../../server/http.js";
import { lookupForApi } from "../../../../../../server/rollouts/rollout-route.js";
import { reportOf } from "../../../../../../server/rollouts/rollouts.js";

export const dynamic = "force-dynamic";

const query = z
  .object({
    format: z.enum(["json", "md"], "must be json or md").optional(),
    download: z.enum(["0", "1"], "must be 0 or 1").optional(),
  })
  .strict();

/**
 * GET /api/v1/rollouts/{id}/report?format=json|md: the change report (docs/schemas/rollout-report.schema.json
 * for JSON), as an attachment named after the rollout; `download=0` shows it inline.
 */
export const GET = route<{ params: Promise<{ id: string }> }>(
  "GET /api/v1/rollouts/[id]/report",
  async (req) => {
    const url = new URL(req.url);
    const raw = Object.fromEntries(url.searchParams);
    // Object.fromEntries keeps the last of a repeated parameter: `format=md&format=json` is ambiguous.
    const repeated = [...new Set(url.searchParams.keys())].filter(
      (k) => url.searchParams.getAll(k).length > 1,
    );
    if (repeated.length > 0)
      return Response.json(
        {
          error: `bad query parameters: ${repeated.join(", ")} given more than once`,
          issues: repeated.map((param) => ({ param, value: "", message: "given more than once" })),
        } satisfies ErrorResponse,
        { status: 400, headers: { "cache-control": "no-store" } },
      );
    const q = query.safeParse(raw);
    if (!q.success) {
      const issues = q.error.issues.map((i) => {
        const param = i.path.length
          ? String(i.path[0])
          : ((i as { keys?: string[] }).keys?.join(",") ?? "(query)");
        return {
          param,
          value: (raw[param] ?? "").slice(0, 60),
          message: i.code === "unrecognized_keys" ? "is not a parameter (format, download)" : i.message,
        };
      });
      return Response.json(
        {
          error: `bad query parameters: ${issues.map((p) => `${p.param} ${p.message}`).join("; ")}`,
          issues,
        } satisfies ErrorResponse,
        { status: 400, headers: { "cache-control": "no-store" } },
      );
    }
    const segments = url.pathname.split("/");
    const r = await lookupForApi(decodeURIComponent(segments.at(-2) ?? ""));
    if (r instanceof Response) return r;
    const report = reportOf(r.state);
    const md = q.data.format === "md";
    const name = `rollout-${r.state.id}-report.${md ? "md" : "json"}`;
    return new Response(md ? renderReportMarkdown(report) : `${JSON.stringify(report, null, 2)}\n`, {
      headers: {
        "content-type": md ? "text/markdown; charset=utf-8" : "application/json; charset=utf-8",
        "content-disposition": `${q.data.download === "0" ? "inline" : "attachment"}; filename="${name}"`,
        "cache-control": "no-store",
      },
    });
  },
);

const notAllowed = methodNotAllowed("GET");
export const POST = notAllowed;
export const PUT = notAllowed;
export const PATCH = notAllowed;
export const DELETE = notAllowed;
