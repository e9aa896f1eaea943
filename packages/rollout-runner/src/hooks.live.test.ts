import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_OUTPUT_BYTES, runHook, type StepRequest } from "./hooks.js";
import { type Recorder, startRecorder } from "./testing/http-recorder.js";

const request: StepRequest = {
  rolloutId: "3f1c7e0a-8a55-4b1e-9d53-2a3e2b8a9c10",
  instance: "db-2:3306",
  step: "wave-0/db-2:3306/apply",
  change: { kind: "doublewrite-off" },
};

let rec: Recorder | undefined;
afterEach(async () => {
  await rec?.close();
  rec = undefined;
});

describe("command hooks", () => {
  it("runs the argv without a shell, gives it the step on stdin and in env, and keeps its output", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "untorn-hook-"));
    try {
      const script = path.join(dir, "apply.sh");
      fs.writeFileSync(
        script,
        '#!/bin/sh\necho "applying to $UNTORN_INSTANCE ($UNTORN_STEP)"\ncat > "$1"\necho "warning: restart pending" >&2\n',
        { mode: 0o755 },
      );
      const got = path.join(dir, "stdin.json");
      const r = await runHook({ kind: "command", command: [script, got], timeoutSeconds: 30 }, request);
      expect(r).toMatchObject({ kind: "command", ok: true, code: 0, timedOut: false, truncated: false });
      expect(r.output).toContain("applying to db-2:3306 (wave-0/db-2:3306/apply)");
      expect(r.output).toContain("warning: restart pending");
      expect(JSON.parse(fs.readFileSync(got, "utf8"))).toEqual(request);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reports a failing command with its exit code and output", async () => {
    const r = await runHook(
      { kind: "command", command: ["sh", "-c", "echo 'fatal: host unreachable'; exit 4"] },
      request,
    );
    expect(r).toMatchObject({ ok: false, code: 4, error: "command exited with 4" });
    expect(r.output).toBe("fatal: host unreachable\n");
  });

  it("kills a command and its children that run past the timeout", async () => {
    const r = await runHook(
      { kind: "command", command: ["sh", "-c", "echo started; sleep 30 & sleep 30"], timeoutSeconds: 0.5 },
      request,
    );
    expect(r).toMatchObject({ ok: false, timedOut: true, code: null });
    expect(r.error).toBe("command ran longer than 0.5 s and was killed");
    expect(r.output).toBe("started\n");
  });

  it("names a program that does not exist", async () => {
    const r = await runHook({ kind: "command", command: ["/nonexistent/ansible-playbook"] }, request);
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/^cannot run \/nonexistent\/ansible-playbook: spawn .* ENOENT/);
  });

  it("keeps only the tail of a huge output", async () => {
    const r = await runHook(
      { kind: "command", command: ["sh", "-c", "head -c 300000 /dev/zero | tr '\\0' x; echo END"] },
      request,
    );
    expect(r.ok).toBe(true);
    expect(r.truncated).toBe(true);
    expect(Buffer.byteLength(r.output)).toBe(MAX_OUTPUT_BYTES);
    expect(r.output.endsWith("xEND\n")).toBe(true);
  });

  it("refuses a malformed hook", async () => {
    await expect(runHook({ kind: "command", command: [] } as never, request)).rejects.toThrow(
      "needs the program to run",
    );
    await expect(runHook({ kind: "webhook", url: "ftp://x" } as never, request)).rejects.toThrow(
      "expected an http(s) URL",
    );
  });
});

describe("webhook hooks", () => {
  it("posts the step as JSON with the configured headers and keeps the answer", async () => {
    rec = await startRecorder(() => ({ status: 202, body: '{"job":"awx-1234"}' }));
    const r = await runHook(
      { kind: "webhook", url: `${rec.url}/hooks/apply`, headers: { Authorization: "Bearer t" } },
      request,
    );
    expect(r).toMatchObject({ kind: "webhook", ok: true, code: 202, output: '{"job":"awx-1234"}' });
    expect(rec.requests[0]).toMatchObject({ method: "POST", url: "/hooks/apply" });
    expect(rec.requests[0]!.headers["authorization"]).toBe("Bearer t");
    expect(JSON.parse(rec.requests[0]!.body)).toEqual(request);
  });

  it("fails on an error status and on a receiver that never answers", async () => {
    rec = await startRecorder((req) => (req.url === "/slow" ? "hang" : { status: 500, body: "boom" }));
    const bad = await runHook({ kind: "webhook", url: `${rec.url}/x` }, request);
    expect(bad).toMatchObject({ ok: false, code: 500, output: "boom", error: "webhook answered HTTP 500" });
    const slow = await runHook({ kind: "webhook", url: `${rec.url}/slow`, timeoutSeconds: 0.3 }, request);
    expect(slow).toMatchObject({ ok: false, timedOut: true, error: "webhook gave no answer within 0.3 s" });
  });
});
