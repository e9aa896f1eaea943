import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/** An executable by name in PATH or the sbin directories a non-root PATH often lacks; undefined if absent. */
export function findTool(name: string): string | undefined {
  // biome-ignore lint/style/noProcessEnv: PATH lookup of a system tool, not a setting
  const dirs = [...(process.env["PATH"] ?? "").split(delimiter), "/usr/sbin", "/sbin", "/usr/bin", "/bin"];
  for (const dir of dirs) {
    if (dir === "") continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {}
  }
  return undefined;
}
