/**
 * The tracker's settings (examples/tracker/config.ts): defaults, the
 * development secret, and refusals of unusable values.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEVELOPMENT_JWT_SECRET, readConfig } from "../../examples/tracker/config.js";

const CWD = "/srv/app";

describe("readConfig", () => {
  it("defaults to port 3000, the embedded database in .resc/tracker and the labelled development secret", () => {
    expect(readConfig({}, [], CWD)).toEqual({
      port: 3000,
      jwtSecret: DEVELOPMENT_JWT_SECRET,
      developmentSecret: true,
      dataDir: path.resolve(CWD, ".resc/tracker"),
      reset: false,
    });
    expect(DEVELOPMENT_JWT_SECRET).toMatch(/DEVELOPMENT/);
  });

  it("reads PORT, TRACKER_JWT_SECRET, DATABASE_URL, TRACKER_DATA_DIR and TRACKER_RESET / --reset", () => {
    const secret = "s".repeat(32);
    const env = {
      PORT: "0",
      TRACKER_JWT_SECRET: secret,
      DATABASE_URL: "postgres://db/tracker",
      TRACKER_DATA_DIR: "data",
      TRACKER_RESET: "1",
    };
    expect(readConfig(env, [], CWD)).toEqual({
      port: 0,
      jwtSecret: secret,
      developmentSecret: false,
      databaseUrl: "postgres://db/tracker",
      dataDir: path.resolve(CWD, "data"),
      reset: true,
    });
    expect(readConfig({}, ["--reset"], CWD).reset).toBe(true);
  });

  it("refuses a bad port, a short secret, and no secret in production", () => {
    for (const port of ["x", "-1", "65536", "3000.5", ""]) {
      expect(() => readConfig({ PORT: port }, [], CWD), port).toThrow(/^PORT must be/);
    }
    expect(() => readConfig({ TRACKER_JWT_SECRET: "short" }, [], CWD)).toThrow(/at least 32 bytes/);
    expect(() => readConfig({ NODE_ENV: "production" }, [], CWD)).toThrow(/TRACKER_JWT_SECRET must be set/);
    expect(readConfig({ NODE_ENV: "production", TRACKER_JWT_SECRET: "p".repeat(40) }, [], CWD).developmentSecret).toBe(
      false,
    );
  });
});
