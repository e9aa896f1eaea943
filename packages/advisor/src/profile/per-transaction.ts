/** What each transaction costs the write path: fsyncs, bytes and operations, and doublewrite's bytes. */
import { transactionInput } from "./activity.js";
import { avgOf, defineIndicatorGroup, div, indicatorsOf, S, V } from "./indicator.js";

const meta = {
  id: "per-transaction",
  title: "Per transaction",
  indicators: [
    {
      id: "fsyncsPerTxn",
      label: "fsyncs per transaction",
      unit: "fsyncs/txn",
      formula: "Innodb_data_fsyncs / transactions",
    },
    {
      id: "writeBytesPerTxn",
      label: "InnoDB write bytes per transaction",
      unit: "bytes/txn",
      formula: "Innodb_data_written / transactions",
    },
    {
      id: "writeOpsPerTxn",
      label: "InnoDB write operations per transaction",
      unit: "ops/txn",
      formula: "Innodb_data_writes / transactions",
    },
    {
      id: "dblwrBytesPerTxn",
      label: "Doublewrite bytes per transaction",
      unit: "bytes/txn",
      formula: "doublewrite bytes / transactions",
    },
  ],
  needs: [
    "workload.rates.dataFsyncs",
    "workload.rates.dataWrittenBytes",
    "workload.rates.dataWrites",
    "workload.rates.dblwrPagesWritten",
    "config.pageSizeBytes",
  ],
  uses: ["transactionRate", "innodbWriteBytesRate", "dblwrBytesRate"],
  source: "",
} as const;

export const perTransaction = defineIndicatorGroup({
  meta,
  build({ facts, built }) {
    const put = indicatorsOf(meta);
    const r = facts.workload?.rates;
    const txnIn = transactionInput(facts);
    const txn = built("transactionRate").value;
    const fsyncIn = S("workload.rates.dataFsyncs", r?.dataFsyncs);
    const dataWrittenIn = S("workload.rates.dataWrittenBytes", r?.dataWrittenBytes);
    const dataWritesIn = S("workload.rates.dataWrites", r?.dataWrites);
    const pagesIn = S("workload.rates.dblwrPagesWritten", r?.dblwrPagesWritten);
    const pageIn = V("config.pageSizeBytes", facts.config.pageSizeBytes ?? null);
    return {
      indicators: [
        put("fsyncsPerTxn", { inputs: [fsyncIn, txnIn], value: div(avgOf(fsyncIn.stat), txn) }),
        put("writeBytesPerTxn", {
          inputs: [dataWrittenIn, txnIn],
          value: div(built("innodbWriteBytesRate").value, txn),
        }),
        put("writeOpsPerTxn", { inputs: [dataWritesIn, txnIn], value: div(avgOf(dataWritesIn.stat), txn) }),
        put("dblwrBytesPerTxn", {
          inputs: [pagesIn, pageIn, txnIn],
          value: div(built("dblwrBytesRate").value, txn),
        }),
      ],
    };
  },
});
