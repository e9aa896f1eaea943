/** One example of every change kind. */
export const CHANGE_KINDS_FOR_TEST = [
  { kind: "doublewrite-off" },
  { kind: "doublewrite-on" },
  { kind: "doublewrite-detect-only" },
  { kind: "doublewrite-pages", pages: 128 },
  { kind: "flush-method", method: "O_DIRECT" },
  { kind: "atomic-storage", platform: "rds-blue-green" },
  { kind: "atomic-storage", platform: "alibaba-16k" },
  { kind: "atomic-storage", platform: "self-managed-migration" },
  { kind: "custom-variable", variable: "innodb_use_fdatasync", value: "ON", dynamic: true },
] as const;
