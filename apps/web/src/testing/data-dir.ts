/**
 * The data layer's tests' scaffolding: a temporary directory with the small recorded fleet written as a
 * replay file and an embedded store, opened once under a hook's timeout (PGlite's first open, WASM and
 * migrations, is slow on a busy machine), and the caches reset before each test.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { encodeReplay, type ReplayFile } from "@untorn/fleet/replay";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { type Env, parseEnv } from "../env.js";
import { metadataStore, resetCaches } from "../server/fleet/data.js";
import { smallReplay } from "./fleet-facts.js";

export interface DataDir {
  /** The temporary directory (removed after the file's tests). */
  readonly dir: string;
  /** The small fleet's replay file in it. */
  readonly replayFile: string;
  /** The replay as written. */
  readonly replay: ReplayFile;
  /** The console's environment with the store in the directory, and `over` on top. */
  env(over?: Record<string, string>): Env;
}

/** Registers the hooks; the returned object's fields are set once the first beforeAll has run. */
export function setUpDataDir(prefix: string): DataDir {
  const d = { dir: "", replayFile: "", replay: null as unknown as ReplayFile };
  const env = (over: Record<string, string> = {}) =>
    parseEnv({ UNTORN_DATA_DIR: path.join(d.dir, "store"), ...over });
  beforeAll(async () => {
    d.dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    d.replayFile = path.join(d.dir, "fleet.json.gz");
    d.replay = smallReplay();
    fs.writeFileSync(d.replayFile, encodeReplay(d.replay));
    await metadataStore(env());
  });
  afterAll(async () => {
    const store = await metadataStore(env()).catch(() => null);
    await store?.close();
    fs.rmSync(d.dir, { recursive: true, force: true });
  });
  beforeEach(() => resetCaches());
  return {
    get dir() {
      return d.dir;
    },
    get replayFile() {
      return d.replayFile;
    },
    get replay() {
      return d.replay;
    },
    env,
  };
}
