/**
 * Snapshot advice (SnapshotAdvice, @untorn/fleet/pipeline) as a zod schema, made of the advisor's own
 * advice schemas, for checking the kept advice a kept fleet read brings back (kept-file.ts).
 */
import { adviceSchema, findingSchema, gateSchema, verdictSchema } from "@untorn/advisor/advice-schema";
import type { SnapshotAdvice } from "@untorn/fleet/pipeline";
import { z } from "zod";

const indicatorValue = z.object({ value: z.number().nullable() }).strict();

export const keptAdviceSchema = z
  .object({
    identity: adviceSchema.shape.identity,
    verdict: z
      .object({ verdict: verdictSchema.shape.verdict, confidence: verdictSchema.shape.confidence })
      .strict(),
    safetyGate: z
      .object({
        status: gateSchema.shape.status,
        path: gateSchema.shape.path,
        providerManaged: gateSchema.shape.providerManaged,
        demoOnly: gateSchema.shape.demoOnly.default(false),
        summary: gateSchema.shape.summary,
        toVerify: gateSchema.shape.toVerify,
      })
      .strict(),
    findings: z.array(
      z
        .object({
          ruleId: findingSchema.shape.ruleId,
          title: findingSchema.shape.title,
          severity: findingSchema.shape.severity,
          docs: findingSchema.shape.docs,
          expectedGain: findingSchema.shape.expectedGain,
          blocked: findingSchema.shape.blocked,
          confidence: findingSchema.shape.confidence,
          actions: z.array(z.object({ changes: findingSchema.shape.actions.element.shape.changes }).strict()),
        })
        .strict(),
    ),
    profile: z
      .object({
        indicators: z
          .object({
            amplification: indicatorValue,
            dblwrShareOfDeviceWriteBytes: indicatorValue,
            dblwrShareOfInnodbWriteBytes: indicatorValue,
            dblwrBytesRate: indicatorValue,
            deviceWriteBytesRate: indicatorValue,
            innodbWriteBytesRate: indicatorValue,
          })
          .strict(),
      })
      .strict(),
  })
  .strict();

// The schema's output is a SnapshotAdvice: a change to either side that breaks this fails the typecheck.
const fits = (x: z.infer<typeof keptAdviceSchema>): SnapshotAdvice => x;
void fits;

/** `x` as a SnapshotAdvice when it passes keptAdviceSchema, else null. */
export function parseKeptAdvice(x: unknown): SnapshotAdvice | null {
  const r = keptAdviceSchema.safeParse(x);
  return r.success ? r.data : null;
}
