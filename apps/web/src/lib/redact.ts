/**
 * Messages shown to readers lose what only the server's operator needs: absolute paths become their last
 * component and process ids are dropped. The full message goes to the server log.
 */
export function redactForReaders(message: string): string {
  return message
    .replace(/(?<![\w.])\/(?:[^\s/:'"`()]+\/)+([^\s/:'"`()]*)/g, (_m, last: string) => last || "…")
    .replace(/\bthis process \(\d+\)/g, "this process")
    .replace(/\b(?:PID|pid|process)\s*\d+/g, "another process")
    .replace(/\(pid \d+[^)]*\)/gi, "");
}
