/**
 * /sys/class/block/<dev>/stat in base units (kernel Documentation/block/stat.rst). Sectors there are
 * always 512 bytes, whatever the device's logical block size; times are milliseconds.
 */
export interface BlockStat {
  readsCompleted: number;
  readBytes: number;
  readSeconds: number;
  writesCompleted: number;
  writtenBytes: number;
  writeSeconds: number;
  inFlight: number;
  ioSeconds: number;
  /** Fields 16-17 exist since Linux 5.5. */
  flushesCompleted?: number;
  flushSeconds?: number;
}

const SECTOR_BYTES = 512;

/**
 * Field order: 1 reads, 2 read merges, 3 sectors read, 4 ms reading, 5 writes, 6 write merges,
 * 7 sectors written, 8 ms writing, 9 in flight, 10 io_ticks ms, 11 weighted ms, 12-15 discards (4.18+),
 * 16 flushes, 17 ms flushing (5.5+). Returns undefined when fewer than the 11 fields of every kernel.
 */
export function parseBlockStat(text: string): BlockStat | undefined {
  const f = text.trim().split(/\s+/);
  if (f.length < 11 || !f.every((x) => /^\d+$/.test(x))) return undefined;
  const n = (i: number) => Number(f[i - 1]);
  const stat: BlockStat = {
    readsCompleted: n(1),
    readBytes: n(3) * SECTOR_BYTES,
    readSeconds: n(4) / 1000,
    writesCompleted: n(5),
    writtenBytes: n(7) * SECTOR_BYTES,
    writeSeconds: n(8) / 1000,
    inFlight: n(9),
    ioSeconds: n(10) / 1000,
  };
  if (f.length >= 17) {
    stat.flushesCompleted = n(16);
    stat.flushSeconds = n(17) / 1000;
  }
  return stat;
}
