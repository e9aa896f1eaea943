import { describe, expect, it, vi } from "vitest";
import { Progress } from "./progress.js";
import { bufferIo } from "./testing/buffer-io.js";

describe("Progress", () => {
  it("stays silent for steps that finish within the delay", () => {
    vi.useFakeTimers();
    const io = bufferIo();
    const p = new Progress(io);
    p.step("quick");
    vi.advanceTimersByTime(500);
    p.done();
    vi.advanceTimersByTime(2000);
    expect(io.stderr()).toBe("");
    vi.useRealTimers();
  });

  it("writes at most one line a second to a log", () => {
    vi.useFakeTimers();
    const io = bufferIo();
    const p = new Progress(io);
    p.step("step 1");
    vi.advanceTimersByTime(1000);
    for (let i = 2; i <= 50; i++) p.step(`step ${i}`);
    vi.advanceTimersByTime(1000);
    p.step("step 51");
    p.done();
    expect(io.stderr().trim().split("\n")).toEqual(["step 1 (1.0s)", "step 51 (2.0s)"]);
    vi.useRealTimers();
  });
});
