import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeReplay } from "@untorn/fleet/replay";
import { fakeReplay } from "@untorn/fleet/testing/fake-api";
import { DB_DOWN, DB_IDLE, DB_ON_LOADED } from "@untorn/fleet/testing/fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../errors.js";
import { run } from "../program.js";
import { bufferIo } from "../testing/buffer-io.js";

// A fake replay (recorded-looking fixture values) written as a replay file.
const AT = 1_790_000_000;
let dir = "";
let file = "";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "untorn-cli-instance-"));
  file = join(dir, "r.gz");
  await writeFile(
    file,
    encodeReplay(fakeReplay([DB_ON_LOADED, DB_IDLE, DB_DOWN], { window: "1h", times: [AT] })),
  );
});

afterAll(() => rm(dir, { recursive: true, force: true }));

describe("untorn instance", () => {
  it("shows the profile, the verdict with evidence, findings with the change, and the safety gate", async () => {
    const io = bufferIo();
    expect(await run(["--replay", file, "instance", "db-on:9105"], io)).toBe(EXIT.ok);
    const out = io.stdout();
    expect(out).toMatch(/^RECORDED DATA/);
    expect(out).toMatch(/^db-on:9105 {2}mariadb 10\.11\.19/m);
    expect(out).toMatch(/^Verdict: write-bound \(score [\d.]+, confidence \d+%\)/m);
    expect(out).toMatch(/strong\s+Free-page waits\s+45 waits\/s \(avg\)/);
    expect(out).toMatch(/Doublewrite pages per flushed page\s+100%/);
    expect(out).toMatch(/\[warning\] Doublewrite costs a large share of writes/);
    expect(out).toMatch(/BLOCKED by the safety gate \(unsafe\)/);
    expect(out).toMatch(/change \(host\): /);
    expect(out).toMatch(/^Safety gate: unsafe/m);
    expect(out).toMatch(/File-system allocation unit >= page size\s+hardware-atomic-write\s+fail/);
    expect(out).toMatch(/^Missing facts \(unknown, not zero\): .*config\.doublewritePages/m);
  });

  it("--json carries the facts, the advice and what is missing", async () => {
    const io = bufferIo();
    expect(await run(["instance", "db-idle:9105", "--replay", file, "--json"], io)).toBe(EXIT.ok);
    const j = JSON.parse(io.stdout());
    expect(j.facts.identity.instance).toBe("db-idle:9105");
    expect(j.advice.verdict.verdict).toBe("not-write-bound");
    expect(j.advice.safetyGate.status).toBe("unsafe");
    expect(j.missing).toContain("workload.rates.osLogFsyncs");
    expect(j.recorded.instances).toEqual(["db-down:9105", "db-idle:9105", "db-on:9105"]);
  });

  it("says why an instance has no facts", async () => {
    const io = bufferIo();
    expect(await run(["instance", "db-down:9105", "--replay", file], io)).toBe(EXIT.failure);
    expect(io.stderr()).toMatch(
      /instance db-down:9105 has no facts in .*r\.gz: the exporter cannot reach the database/,
    );
  });

  it("lists the recorded instances for one the replay does not have", async () => {
    const io = bufferIo();
    expect(await run(["instance", "db-9:9105", "--replay", file], io)).toBe(EXIT.failure);
    expect(io.stderr()).toMatch(
      /instance db-9:9105 has no facts in .*r\.gz: no series with this instance label \(recorded instances: db-down:9105, db-idle:9105, db-on:9105\)/,
    );
  });
});
