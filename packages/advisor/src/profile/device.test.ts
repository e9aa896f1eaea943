import { facts, load, mariadb1011, virtio } from "../fixtures/build.js";
import { indicatorGroupTester } from "../fixtures/indicator-group-tester.js";

// load(): device writes = data writes + log writes = 1210 + 200; bytes = (1200 + 1200) x 16 KiB + 400 x 4 KiB redo.
const work = (device: { util: number; writeLatency: number; otherWriterBytes?: number } | null) =>
  facts(
    "d",
    mariadb1011,
    virtio,
    load({ flushed: 1200, doublewrite: true, batchPages: 120, txn: 400, device }),
  );
const bytes = 2400 * 16384 + 400 * 4096;

indicatorGroupTester("device", {
  valid: [
    {
      name: "busy device",
      facts: work({ util: 0.3, writeLatency: 0.001 }),
      values: {
        deviceWriteIops: 1410,
        deviceWriteBytesRate: bytes,
        deviceUtilisation: 0.3,
        deviceWriteLatency: 0.001,
        deviceFlushLatency: 0.001,
        dblwrShareOfDeviceWriteBytes: (1200 * 16384) / bytes,
        dblwrShareOfDeviceWriteIops: 10 / 1410,
      },
      peaks: { deviceWriteIops: 1410 * 1.1, deviceUtilisation: 0.33 },
    },
    {
      name: "others wrote less than the instance itself: still the device's share",
      facts: work({ util: 0.3, writeLatency: 0.001, otherWriterBytes: bytes * 0.9 }),
      values: { dblwrShareOfDeviceWriteBytes: (1200 * 16384) / (bytes * 1.9) },
    },
  ],
  invalid: [
    {
      name: "shared device: other writers wrote 3x the instance's bytes, so no share of the device",
      facts: work({ util: 0.3, writeLatency: 0.001, otherWriterBytes: bytes * 3 }),
      nulls: {
        dblwrShareOfDeviceWriteBytes: {
          missing: [],
          note: /^the device is shared: InnoDB's data and redo bytes \(.+\) are 25% of the .+ it wrote, .+ doublewrite's share of InnoDB's own write bytes stands in$/,
        },
        dblwrShareOfDeviceWriteIops: { missing: [], note: /^the device is shared/ },
      },
    },
    {
      name: "remote exporter: no device facts",
      facts: work(null),
      nulls: {
        deviceWriteIops: { missing: ["workload.device.writeIops"] },
        deviceWriteLatency: {
          missing: ["workload.device.writeSecondsPerSecond", "workload.device.writeIops"],
        },
        dblwrShareOfDeviceWriteBytes: { missing: ["workload.device.writeBytesPerSecond"] },
      },
    },
  ],
});
