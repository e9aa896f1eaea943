import type { Io } from "./io.js";

/**
 * Progress for anything slower than a second, on stderr so stdout stays clean for --json. Nothing is
 * shown for steps that finish within `delayMs`; on a terminal the line is redrawn in place.
 */
export class Progress {
  private timer: NodeJS.Timeout | undefined;
  private current = "";
  private shown = false;
  private lastLine = 0;
  private readonly started = Date.now();

  constructor(
    private readonly io: Io,
    private readonly quiet = false,
    private readonly delayMs = 1000,
  ) {}

  step(message: string): void {
    this.current = message;
    if (this.quiet) return;
    if (this.shown) this.render();
    else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.shown = true;
        this.render();
      }, this.delayMs);
      this.timer.unref();
    }
  }

  private render(): void {
    const now = Date.now();
    const secs = ((now - this.started) / 1000).toFixed(1);
    if (this.io.isTty) this.io.err(`\r\x1b[K${this.current} (${secs}s)`);
    else if (now - this.lastLine >= 1000) {
      // A log gets at most one line a second, not one per step.
      this.lastLine = now;
      this.io.err(`${this.current} (${secs}s)\n`);
    }
  }

  done(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.shown && this.io.isTty) this.io.err("\r\x1b[K");
    this.shown = false;
  }
}
