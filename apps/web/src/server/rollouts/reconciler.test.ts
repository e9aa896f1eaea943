import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseEnv } from "../../env.js";
import { loadHooks } from "./reconciler.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "untorn-hooks-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const write = (name: string, text: string) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
};

describe("UNTORN_HOOKS_FILE", () => {
  it("is no hooks when unset", async () => {
    expect(await loadHooks(parseEnv({}))).toBeUndefined();
  });

  it("reads the hooks `untorn rollout reconcile --hooks` takes, with their defaults", async () => {
    const file = write(
      "hooks.json",
      JSON.stringify({ hooks: { apply: { kind: "command", command: ["ansible-playbook", "dw-off.yml"] } } }),
    );
    expect(await loadHooks(parseEnv({ UNTORN_HOOKS_FILE: file }))).toEqual({
      apply: { kind: "command", command: ["ansible-playbook", "dw-off.yml"], timeoutSeconds: 600 },
    });
  });

  it("refuses a missing file, bad JSON and a hook the schema does not take, naming the file and the field", async () => {
    const missing = path.join(dir, "nope.json");
    await expect(loadHooks(parseEnv({ UNTORN_HOOKS_FILE: missing }))).rejects.toThrow(
      `UNTORN_HOOKS_FILE=${missing} cannot be read as JSON`,
    );
    const bad = write("bad.json", "{ hooks:");
    await expect(loadHooks(parseEnv({ UNTORN_HOOKS_FILE: bad }))).rejects.toThrow("cannot be read as JSON");
    const wrong = write("wrong.json", JSON.stringify({ hooks: { apply: { kind: "command", command: [] } } }));
    await expect(loadHooks(parseEnv({ UNTORN_HOOKS_FILE: wrong }))).rejects.toThrow(
      /is not a hooks file .*hooks\.apply\.command: needs the program to run/,
    );
  });
});
