/**
 * The instance metadata form: its fields, the choices of its selects, and the zod schema the Server
 * Action parses the submitted FormData with. The value lists are the vocabulary's (dependency-free, so
 * the form's client code does not pull the store into the browser).
 */
import { CLOUDS, MANAGED_SERVICES, REPLICATION_ROLES, TORN_WRITE_PROVIDERS } from "@untorn/vocabulary/words";
import { z } from "zod";
/** Atomic units worth offering: InnoDB page sizes (docs/reference/atomic-storage.md §8.2). */
export const UNIT_SIZES = ["4096", "8192", "16384", "32768", "65536"] as const;
/** How providers meter I/O: 16 KiB per page, or up to 256 KiB per request (AWS EBS SSD, docs/reference/iops-metering.md §11). */
export const IO_UNITS = ["4096", "16384", "65536", "262144"] as const;
export const RECORDSIZES = ["4096", "8192", "16384", "32768", "65536", "131072", "1048576"] as const;

const choice = <T extends readonly [string, ...string[]]>(values: T) => z.enum(["", ...values]).default("");
const trimmed = (max: number) => z.string().trim().max(max, `at most ${max} characters`).default("");

const positiveNumber = (what: string) =>
  z
    .string()
    .trim()
    .default("")
    .refine(
      (s) => s === "" || (/^\d+(\.\d+)?$/.test(s) && Number(s) > 0),
      `${what} must be a number above 0`,
    );

export const metadataFormSchema = z
  .object({
    instance: z.string().trim().min(1, "missing instance").max(512),
    cluster: trimmed(200),
    role: choice(REPLICATION_ROLES),
    notes: z.string().max(10_000, "at most 10,000 characters").default(""),
    storageClass: trimmed(100),
    managedService: choice(MANAGED_SERVICES),
    cloud: choice(CLOUDS),
    instanceClass: trimmed(100),
    rdsOptimizedWrites: choice(["auto", "off"] as const),
    tornWriteProvider: choice(TORN_WRITE_PROVIDERS),
    tornWriteUnitBytes: choice(UNIT_SIZES),
    tornWriteNote: z.string().max(2000, "at most 2,000 characters").default(""),
    fsType: z
      .string()
      .trim()
      .toLowerCase()
      .default("")
      .refine((s) => s === "" || /^[a-z0-9._-]{1,32}$/.test(s), "a file system type such as ext4, xfs, zfs"),
    zfsRecordsizeBytes: choice(RECORDSIZES),
    limitsMetered: choice(["true", "false"] as const),
    limitsIops: positiveNumber("IOPS").refine((s) => s === "" || Number.isInteger(Number(s)), "whole IOPS"),
    limitsBandwidthMiBps: positiveNumber("Bandwidth"),
    limitsIoUnitBytes: choice(IO_UNITS),
    token: z.string().max(1000).default(""),
  })
  .superRefine((v, ctx) => {
    if (v.tornWriteProvider && !v.tornWriteUnitBytes)
      ctx.addIssue({
        code: "custom",
        path: ["tornWriteUnitBytes"],
        message: "say how large a write the provider keeps atomic",
      });
    if (!v.tornWriteProvider && v.tornWriteUnitBytes)
      ctx.addIssue({
        code: "custom",
        path: ["tornWriteProvider"],
        message: "say who provides the protection",
      });
  });

export type MetadataForm = z.infer<typeof metadataFormSchema>;

export interface MetadataFormState {
  readonly status: "idle" | "saved" | "error";
  /** Set when access control refused the save: 401 not signed in, 403 role too weak. */
  readonly denied?: 401 | 403;
  readonly message: string;
  readonly fieldErrors: Readonly<Record<string, string>>;
}

export const IDLE: MetadataFormState = { status: "idle", message: "", fieldErrors: {} };
