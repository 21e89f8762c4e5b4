/**
 * The tracker's settings, read from the environment once at start
 * (README: Quick start). Kept apart from `main.ts` so the rules are tested
 * without starting a server.
 */
import path from "node:path";

/**
 * The development secret used when `TRACKER_JWT_SECRET` is unset. It is in
 * the source, so anyone can mint tokens with it: fine on a laptop, refused
 * when `NODE_ENV=production`.
 */
export const DEVELOPMENT_JWT_SECRET = "tracker-DEVELOPMENT-ONLY-secret-do-not-deploy-0123456789";

/** Resolved settings of one start. */
export interface TrackerConfig {
  /** TCP port on 127.0.0.1; 0 lets the system choose. */
  port: number;
  jwtSecret: string;
  /** True when {@link DEVELOPMENT_JWT_SECRET} is in use. */
  developmentSecret: boolean;
  /** A PostgreSQL server to use as is (no DDL applied); absent means the embedded database. */
  databaseUrl?: string;
  /** Where the embedded database keeps its files (absolute). */
  dataDir: string;
  /** Delete the embedded database first and start from the seed again. */
  reset: boolean;
}

/**
 * Reads `PORT` (default 3000), `TRACKER_JWT_SECRET`, `DATABASE_URL`,
 * `TRACKER_DATA_DIR` (default `.resc/tracker`, relative to `cwd`) and
 * `TRACKER_RESET=1` (or a `--reset` argument).
 * @throws Error naming the variable when a value is unusable: a port that
 *   is not a whole number from 0 to 65535, a secret shorter than 32 bytes,
 *   or no secret under `NODE_ENV=production`
 */
export function readConfig(env: NodeJS.ProcessEnv, argv: readonly string[], cwd: string): TrackerConfig {
  const portText = env.PORT ?? "3000";
  if (!/^[0-9]{1,5}$/.test(portText) || Number(portText) > 65535) {
    throw new Error(`PORT must be a whole number from 0 to 65535, not ${JSON.stringify(portText)}`);
  }
  const secret = env.TRACKER_JWT_SECRET;
  if (secret === undefined || secret === "") {
    if (env.NODE_ENV === "production") throw new Error("TRACKER_JWT_SECRET must be set when NODE_ENV=production");
  } else if (Buffer.byteLength(secret, "utf8") < 32) {
    throw new Error("TRACKER_JWT_SECRET must be at least 32 bytes long (HS256 keys are 256 bits)");
  }
  const developmentSecret = secret === undefined || secret === "";
  const config: TrackerConfig = {
    port: Number(portText),
    jwtSecret: developmentSecret ? DEVELOPMENT_JWT_SECRET : (secret as string),
    developmentSecret,
    dataDir: path.resolve(cwd, env.TRACKER_DATA_DIR || ".resc/tracker"),
    reset: env.TRACKER_RESET === "1" || argv.includes("--reset"),
  };
  if (env.DATABASE_URL) config.databaseUrl = env.DATABASE_URL;
  return config;
}
