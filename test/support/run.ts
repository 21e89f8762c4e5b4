/**
 * Runs a child process without blocking the vitest worker: a synchronous
 * spawn would stall the worker's event loop (and its reports to the main
 * process) for as long as the child runs.
 */
import { execFile } from "node:child_process";

/** What a finished child process left behind. `code` is null when it was killed. */
export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `file` with `args`; resolves (never rejects) once it exits.
 * @param options.timeout milliseconds before the child is killed (default 60 000)
 */
export function run(
  file: string,
  args: string[],
  options: { cwd?: string; timeout?: number; input?: string; env?: Record<string, string> } = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      args,
      {
        cwd: options.cwd,
        encoding: "utf8",
        timeout: options.timeout ?? 60_000,
        maxBuffer: 64 * 1024 * 1024,
        ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** Runs a Node script (`process.execPath`) with `args`. */
export function runNode(
  args: string[],
  options: { cwd?: string; timeout?: number; input?: string; env?: Record<string, string> } = {},
): Promise<RunResult> {
  return run(process.execPath, args, options);
}
