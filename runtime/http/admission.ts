/**
 * Per-resource admission: no single resource may hold more than its share
 * of the database pool, so requests stuck on one locked table cannot take
 * every connection while requests for other tables wait behind them
 * (docs/decisions/0911-lock-timeout.md).
 */
import { ProblemError, problem } from "../problem.js";

/** A counting semaphore whose waiters give up after a deadline. */
export interface Admission {
  /**
   * Runs `fn` once a slot is free.
   * @throws ProblemError 503 `resource-busy` naming `resource` when no slot came free within the wait
   */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Requests running now. */
  readonly active: number;
  /** Requests waiting for a slot. */
  readonly waiting: number;
}

/**
 * Creates an admission gate of `slots` concurrent requests; a request waits
 * at most `waitMillis` for a slot.
 *
 * @param resource the collection path, named in the 503's detail
 */
export function createAdmission(slots: number, waitMillis: number, resource: string): Admission {
  let active = 0;
  const queue: Array<() => void> = [];
  const release = (): void => {
    const next = queue.shift();
    if (next) next();
    else active--;
  };
  /** Waits for a slot a finishing request hands over (it does not decrement `active` then). */
  const wait = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const grant = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const i = queue.indexOf(grant);
        if (i >= 0) queue.splice(i, 1);
        const p = problem(
          "resource-busy",
          `Every connection this service gives to ${resource} is busy (a lock on its table, or load); try again shortly.`,
        );
        p.retryAfterSeconds = 1;
        reject(p);
      }, waitMillis);
      queue.push(grant);
    });
  return {
    async run<T>(fn: () => Promise<T>): Promise<T> {
      // A free slot is taken without awaiting anything: one tick less per request (decision 1341).
      if (active < slots) active++;
      else await wait();
      try {
        return await fn();
      } finally {
        release();
      }
    },
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
  };
}
