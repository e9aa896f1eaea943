import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { adviceSchema } from "@untorn/advisor/advice-schema";
import { buildFleetFacts } from "@untorn/fleet/facts";
import { ReplayApi } from "@untorn/fleet/replay";
import { fakeReplay } from "@untorn/fleet/testing/fake-api";
import { DB_IDLE, DB_OFF_LOADED, DB_ON_LOADED } from "@untorn/fleet/testing/fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../errors.js";
import { run } from "../program.js";
import { bufferIo } from "../testing/buffer-io.js";
import { adviseFleetOutputSchema, adviseOutputSchema } from "./advise-output.js";

const EXAMPLE = join(import.meta.dirname, "../../../../docs/schemas/instance-facts.example.json");
let dir = "";
let fleetFile = "";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "untorn-cli-advise-"));
  // Facts as the fleet engine builds them from a fake replay (recorded-looking fixture values).
  const api = new ReplayApi(
    fakeReplay([DB_ON_LOADED, DB_OFF_LOADED, DB_IDLE], { window: "1h", times: [1_790_000_000] }),
  );
  const { facts } = await buildFleetFacts(api, { window: "1h" });
  fleetFile = join(dir, "fleet.json");
  await writeFile(fleetFile, JSON.stringify(facts));
});

afterAll(() => rm(dir, { recursive: true, force: true }));

const write = async (name: string, text: string) => {
  const p = join(dir, name);
  await writeFile(p, text);
  return p;
};

describe("untorn advise", () => {
  it("advises one InstanceFacts file offline", async () => {
    const io = bufferIo();
    expect(await run(["advise", "--facts", EXAMPLE], io)).toBe(EXIT.ok);
    expect(io.stdout()).toMatch(/^Verdict: write-bound/m);
    expect(io.stdout()).toMatch(/^Safety gate: /m);
  });

  it("prints the facts it ignored, contradicted or overrode, and lists the allowed page sizes", async () => {
    const facts = JSON.parse(await readFile(EXAMPLE, "utf8"));
    facts.storage = {
      ...facts.storage,
      atomicWrite: { attributesPresent: null, unitMaxBytes: 16384 },
      tornWriteProtection: null,
    };
    const io = bufferIo();
    expect(await run(["advise", "--facts", await write("ignored.json", JSON.stringify(facts))], io)).toBe(
      EXIT.ok,
    );
    expect(io.stdout()).toMatch(/^Input warnings:$/m);
    expect(io.stdout()).toMatch(/\[ignored\] storage\.atomicWrite\.unitMaxBytes: .*attributesPresent/);
    const j = bufferIo();
    await run(["advise", "--facts", await write("ignored.json", JSON.stringify(facts)), "--json"], j);
    expect(JSON.parse(j.stdout()).warnings[0]).toMatchObject({
      code: "ignored",
      path: "storage.atomicWrite.unitMaxBytes",
    });

    facts.config.pageSizeBytes = 12000;
    const bad = bufferIo();
    expect(await run(["advise", "--facts", await write("page.json", JSON.stringify(facts))], bad)).toBe(
      EXIT.invalidInput,
    );
    expect(bad.stderr()).toMatch(/config\.pageSizeBytes.*4096, 8192, 16384, 32768, 65536/s);
  });

  it("ranks an array of facts like the fleet table, or prints JSON", async () => {
    const io = bufferIo();
    expect(await run(["advise", "--facts", fleetFile], io)).toBe(EXIT.ok);
    expect(io.stdout()).toMatch(/^1\s+db-on:9105\s+write-bound/m);
    const j = bufferIo();
    expect(await run(["advise", "--facts", fleetFile, "--json"], j)).toBe(EXIT.ok);
    const out = JSON.parse(j.stdout());
    expect(out.rows[0].instance).toBe("db-on:9105");
    expect(out.atRisk.map((r: { instance: string }) => r.instance)).toEqual(["db-off:9105"]);
    expect(out.advice).toHaveLength(3);
    // The whole output is what docs/schemas/cli-advise.schema.json says, nothing more.
    expect(adviseFleetOutputSchema.parse(out)).toEqual(out);
    expect(adviseOutputSchema.parse(out)).toEqual(out);
  });

  it("--json for one instance is its advice (docs/schemas/cli-advise.schema.json)", async () => {
    const j = bufferIo();
    expect(await run(["advise", "--facts", EXAMPLE, "--json"], j)).toBe(EXIT.ok);
    const out = JSON.parse(j.stdout());
    expect(adviceSchema.parse(out)).toEqual(out);
    expect(adviseOutputSchema.parse(out)).toEqual(out);
    expect(adviseFleetOutputSchema.safeParse(out).success).toBe(false);
  });

  it("exits 3 and names the field of a bad file", async () => {
    const example = JSON.parse(await readFile(EXAMPLE, "utf8"));
    const badOne = await write(
      "bad-one.json",
      JSON.stringify({ ...example, server: { ...example.server, flavor: "oracle" } }),
    );
    const facts = JSON.parse(await readFile(fleetFile, "utf8"));
    facts[1].config.pageSizeBytes = 1234;
    const badArray = await write("bad-array.json", JSON.stringify(facts));
    const cases: [string, RegExp][] = [
      [badOne, /bad-one\.json is not valid InstanceFacts:\n {2}server\.flavor: /],
      [badArray, /bad-array\.json is not valid InstanceFacts \(array\):\n {2}\[1\]\.config\.pageSizeBytes: /],
      [await write("not.json", "{ nope"), /not\.json is not valid JSON/],
      [join(dir, "missing.json"), /cannot read InstanceFacts file .*missing\.json/],
      [await write("empty-array.json", "[]"), /\(root\): /],
      [await write("dup.json", JSON.stringify([facts[0], facts[0]])), /instance db-idle:9105 appears twice/],
    ];
    for (const [file, message] of cases) {
      const io = bufferIo();
      expect(await run(["advise", "--facts", file], io), file).toBe(EXIT.invalidInput);
      expect(io.stderr()).toMatch(message);
    }
  });

  it("exits 2 without --facts", async () => {
    const io = bufferIo();
    expect(await run(["advise"], io)).toBe(EXIT.usage);
    expect(io.stderr()).toMatch(/required option '--facts <file>'/);
  });
});
