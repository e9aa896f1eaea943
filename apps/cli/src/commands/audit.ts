/**
 * `untorn audit verify`: reads the store's audit log and checks its hash chain (every entry's hash
 * recomputed here, each linked to the one before it). Exit 0 with the number of entries and the head
 * hash (record it elsewhere: a rewrite that recomputes the whole chain, or entries cut off the end, only
 * shows against a head kept outside the database); exit 4 naming the first broken link. Changes nothing.
 */
import type { Store } from "@untorn/store/store";
import type { Command } from "commander";
import { CliError, EXIT } from "../errors.js";
import type { Io } from "../io.js";
import { DEFAULT_DATA_DIR, openCliStore, storeTarget } from "../store-open.js";
import { DESCRIPTIONS } from "./descriptions.js";

interface VerifyFlags {
  dataDir?: string;
  databaseUrl?: string;
  expectHead?: string;
  json?: boolean;
}

async function verify(flags: VerifyFlags, io: Io): Promise<void> {
  const target = storeTarget(flags, io);
  if (flags.expectHead !== undefined && !/^[0-9a-f]{64}$/.test(flags.expectHead))
    throw new CliError("--expect-head: expected the 64 hex digits `untorn audit verify` printed", EXIT.usage);
  const store = await openCliStore(target, { migrations: "require" });
  try {
    const v = await store.verifyAudit();
    if (flags.json) io.out(`${JSON.stringify(v)}\n`);
    if (!v.ok) {
      if (!flags.json) io.out(`audit log BROKEN at entry ${v.brokenAt}: ${v.reason}\n`);
      throw new CliError(
        `the audit log's chain is broken at entry ${v.brokenAt} (${v.entries} entries before it hold)`,
        EXIT.verdict,
      );
    }
    if (!flags.json) io.out(`audit log verified: ${v.entries} entries, head ${v.head ?? "(empty)"}\n`);
    if (flags.expectHead !== undefined && !(await chainHolds(store, flags.expectHead)))
      throw new CliError(
        `the head you recorded (${flags.expectHead.slice(0, 12)}…) is in no entry of the chain: it was rewritten or cut`,
        EXIT.verdict,
      );
  } finally {
    await store.close();
  }
}

/** Whether some entry of the chain carries `hash` (a head recorded before later entries were added). */
async function chainHolds(store: Store, hash: string): Promise<boolean> {
  const PAGE = 500;
  for (let before: number | undefined; ; ) {
    const page = await store.listAudit({ limit: PAGE, ...(before === undefined ? {} : { before }) });
    if (page.some((e) => e.hash === hash)) return true;
    if (page.length < PAGE) return false;
    before = page.at(-1)!.id;
  }
}

export function registerAudit(program: Command, io: Io): void {
  const audit = program.command("audit").description(DESCRIPTIONS.audit);
  audit
    .command("verify")
    .description(
      "check the audit log's hash chain: exit 0 when every entry links to the one before it, 4 naming the first that does not",
    )
    .option("--data-dir <dir>", `embedded store directory (default: $UNTORN_DATA_DIR or ${DEFAULT_DATA_DIR})`)
    .option("--database-url <url>", "PostgreSQL store instead of the data directory (default: $DATABASE_URL)")
    .option(
      "--expect-head <sha256>",
      "a head printed by an earlier verify, kept outside the database: exit 4 unless the chain still holds it",
    )
    .option("--json", "print the result as JSON")
    .action(async (flags: VerifyFlags) => verify(flags, io));
}
