/**
 * Starts each server under test in its own Node process, so the load
 * generator, resc and the hand-written server never share an event loop.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** A running server process. */
export interface ServerProcess {
  /** Report label: `resc` or `hand-written`. */
  label: string;
  /** `http://127.0.0.1:PORT` */
  base: string;
  /** Sends SIGTERM and waits for the process to end (it closes its pool first). */
  stop(): Promise<void>;
}

/** The entry files, by label. */
export const SERVER_ENTRIES = {
  resc: fileURLToPath(new URL("./resc-server.ts", import.meta.url)),
  "hand-written": fileURLToPath(new URL("./handwritten/server.ts", import.meta.url)),
} as const;

/** Options of {@link startServer}. */
export interface StartOptions {
  databaseUrl: string;
  /** Folder for V8 CPU profiles (`node --cpu-prof`), one subfolder per server, written when it stops; none when absent. */
  profileDir?: string;
}

/**
 * Runs `node --import tsx <entry>` with `DATABASE_URL` and `PORT=0`, and
 * resolves once the child prints `listening <port>`. Rejects when the child
 * exits first (its stderr is passed through) or takes more than 30 s.
 */
export async function startServer(label: keyof typeof SERVER_ENTRIES, options: StartOptions): Promise<ServerProcess> {
  const args = ["--import", "tsx"];
  // One folder per server: the loader thread writes a profile of its own next to the main thread's.
  if (options.profileDir) args.push("--cpu-prof", `--cpu-prof-dir=${path.join(options.profileDir, label)}`);
  const child: ChildProcess = spawn(process.execPath, [...args, SERVER_ENTRIES[label]], {
    env: { ...process.env, DATABASE_URL: options.databaseUrl, PORT: "0", NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${label}: not listening after 30 s`)), 30_000);
    child.once("exit", (code) => reject(new Error(`${label}: exited with ${code} before listening`)));
    lines.on("line", (line) => {
      const m = /^listening (\d+)$/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
  });
  return {
    label,
    base: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}
