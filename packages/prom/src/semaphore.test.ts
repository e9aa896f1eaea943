import { describe, expect, it } from "vitest";
import { Semaphore } from "./semaphore.js";

describe("Semaphore", () => {
  it("admits up to the limit, then first come first served", async () => {
    const sem = new Semaphore(2);
    const r1 = await sem.acquire();
    await sem.acquire();
    const order: number[] = [];
    const w3 = sem.acquire().then((r) => {
      order.push(3);
      return r;
    });
    const w4 = sem.acquire().then((r) => {
      order.push(4);
      return r;
    });
    await Promise.resolve();
    expect(sem.inUse).toBe(2);
    expect(sem.queued).toBe(2);
    r1();
    r1(); // a second release of the same slot is ignored
    const r3 = await w3;
    expect(order).toEqual([3]);
    expect(sem.inUse).toBe(2);
    r3();
    await w4;
    expect(order).toEqual([3, 4]);
  });

  it("drops an aborted waiter from the queue", async () => {
    const sem = new Semaphore(1);
    const release = await sem.acquire();
    const ac = new AbortController();
    const waiting = sem.acquire(ac.signal);
    ac.abort(new Error("gone"));
    await expect(waiting).rejects.toThrow("gone");
    expect(sem.queued).toBe(0);
    release();
    expect(sem.inUse).toBe(0);
  });

  it("rejects a bad limit", () => {
    expect(() => new Semaphore(0)).toThrow(RangeError);
    expect(() => new Semaphore(1.5)).toThrow(RangeError);
  });
});
