/**
 * A `resc serve` process for a test: started on a free port with the given
 * arguments, ready once it logs that it serves, stopped with SIGTERM (and
 * killed if it lingers). Shared by the serve, PgBouncer, replica and
 * several-nodes suites; {@link printed} waits for any child process's line (the init suite's npm start and resc dev).
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { freePort } from "./ports.js";

/** A running `resc serve`. */
export interface ServeProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:PORT` */
  base: string;
  /** Everything it printed so far (JSON log lines on stdout, errors on stderr). */
  output(): string;
  /** SIGTERM, then waits for the exit; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Runs `resc serve FILE --port <free> …args` from the repository root and
 * resolves once it serves; `options.env` replaces this process's
 * environment, `options.nodeArgs` go to Node before the script.
 * @throws Error with its output when it exits first or is not serving within 30 s
 */
export async function startServe(
  file: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; nodeArgs?: string[] } = {},
): Promise<ServeProcess> {
  const port = await freePort();
  // No drain unless the test asks for one: stop() is then as quick as it was before draining existed.
  const drain = args.includes("--drain-seconds") ? [] : ["--drain-seconds", "0"];
  const child = spawn(
    process.execPath,
    [
      ...(options.nodeArgs ?? []),
      path.resolve("bin/resc.js"),
      "serve",
      file,
      "--port",
      String(port),
      ...drain,
      ...args,
    ],
    { env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] },
  );
  const out = collected(child);
  await printed(child, out, '"msg":"serving', "resc serve", 30_000);
  return {
    child,
    base: `http://127.0.0.1:${port}`,
    output: () => out.text,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
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
