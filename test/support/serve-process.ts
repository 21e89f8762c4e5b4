/**
 * A `resc serve` or `resc dev` process for a test: started on a free port
 * with the given arguments, ready once it says that it serves, stopped with
 * SIGTERM (and killed if it lingers) or killed outright. Shared by every
 * suite that runs resc as a user does; {@link printed} waits for any child
 * process's line (the init suite's npm start).
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { freePort } from "./ports.js";

/** The `resc` command of this checkout. */
const BIN = path.resolve(import.meta.dirname, "../../bin/resc.js");

/** A running `resc serve` or `resc dev`. */
export interface ServeProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:PORT` */
  base: string;
  port: number;
  /** Everything it printed so far (JSON log lines on stdout, errors on stderr). */
  output(): string;
  /** SIGTERM, then waits for the exit (SIGKILL after 15 s); resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL (a crash: nothing runs on the way out), then waits for the exit. */
  kill(): Promise<void>;
}

/** How a test starts `resc serve` or `resc dev`. */
export interface StartOptions {
  /** Replaces this process's environment. */
  env?: NodeJS.ProcessEnv;
  /** The working directory; the repository root by default (paths in `args` are then relative to it). */
  cwd?: string;
  /** Arguments for Node before the script (`--import`, `--inspect`…). */
  nodeArgs?: string[];
  /** How long it may take to say it serves, in milliseconds; 30 s by default. */
  ms?: number;
}

/** What each command prints once it answers requests. */
const SERVING: Record<"serve" | "dev", string> = { serve: '"msg":"serving', dev: "resc: serving" };

/**
 * Runs `resc COMMAND FILE --port <free> …args` and resolves once it
 * serves. `resc serve` gets `--drain-seconds 0` unless `args` sets a drain,
 * so stop() is quick.
 * @throws Error with its output when it exits first or is not serving within `options.ms`
 */
export async function startResc(
  command: "serve" | "dev",
  file: string,
  args: string[],
  options: StartOptions = {},
): Promise<ServeProcess> {
  const port = await freePort();
  const drain = command === "dev" || args.includes("--drain-seconds") ? [] : ["--drain-seconds", "0"];
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), BIN, command, file, "--port", String(port), ...drain, ...args],
    { env: options.env ?? process.env, cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] },
  );
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  const out = collected(child);
  await printed(child, out, SERVING[command], `resc ${command}`, options.ms ?? 30_000);
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  return {
    child,
    base: `http://127.0.0.1:${port}`,
    port,
    output: () => out.text,
    async stop() {
      if (!running()) return child.exitCode;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    async kill() {
      if (running()) child.kill("SIGKILL");
      await exited;
    },
  };
}

/**
 * Runs `resc serve FILE --port <free> …args` from the repository root and
 * resolves once it serves ({@link startResc}).
 * @throws Error with its output when it exits first or is not serving within 30 s
 */
export function startServe(file: string, args: string[], options: StartOptions = {}): Promise<ServeProcess> {
  return startResc("serve", file, args, options);
}

/** What a child process printed so far, on stdout and stderr together. */
export interface Collected {
  text: string;
}

/** Starts collecting what `child` prints, from now. */
export function collected(child: ChildProcess): Collected {
  const out = { text: "" };
  child.stdout?.on("data", (d) => (out.text += String(d)));
  child.stderr?.on("data", (d) => (out.text += String(d)));
  return out;
}

/**
 * Resolves once what `child` printed (collected in `out`) includes `marker`.
 * @throws Error naming `what`, with its output, when it exits first or `ms` milliseconds pass
 */
export function printed(child: ChildProcess, out: Collected, marker: string, what: string, ms: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start: ${out.text}`)), ms);
    child.once("exit", (code) => reject(new Error(`${what} exited with ${code}: ${out.text}`)));
    const check = (): void => {
      if (out.text.includes(marker)) {
        clearTimeout(timer);
        resolve();
      }
    };
    check();
    child.stdout?.on("data", check);
    child.stderr?.on("data", check);
  });
}
