import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "./env.js";

describe("parseEnv", () => {
  it("fills the defaults and treats empty values as unset", () => {
    const e = parseEnv({ PROMETHEUS_URL: "", GRAFANA_URL: " ", PORT: "" });
    expect(e).toMatchObject({
      PROMETHEUS_URL: undefined,
      GRAFANA_URL: undefined,
      UNTORN_DATA_DIR: ".untorn-data",
      PORT: 3000,
      UNTORN_WINDOW: "1h",
      UNTORN_CACHE_SECONDS: 30,
    });
  });

  it("strips trailing slashes from URLs and coerces numbers", () => {
    const e = parseEnv({
      PROMETHEUS_URL: "http://prom:9090/",
      GRAFANA_URL: "https://g.example/grafana/",
      PORT: "8080",
    });
    expect(e.PROMETHEUS_URL).toBe("http://prom:9090");
    expect(e.GRAFANA_URL).toBe("https://g.example/grafana");
    expect(e.PORT).toBe(8080);
  });

  it("names every bad variable", () => {
    let err: unknown;
    try {
      parseEnv({
        PROMETHEUS_URL: "ftp://prom",
        PORT: "70000",
        DATABASE_URL: "mysql://x",
        UNTORN_ADMIN_TOKEN: "short",
        UNTORN_WINDOW: "an hour",
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EnvError);
    const issues = (err as EnvError).issues.join("\n");
    for (const name of ["PROMETHEUS_URL", "PORT", "DATABASE_URL", "UNTORN_ADMIN_TOKEN", "UNTORN_WINDOW"])
      expect(issues).toContain(name);
  });
});
