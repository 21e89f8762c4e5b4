/**
 * Waiting in a test for something another process or the service's
 * background work makes true: one poll loop for every suite, so each
 * failure says what did not happen (and, when given, what the child
 * printed) in the same words.
 */

/**
 * Polls `f` every 50 ms until it returns a truthy value, and resolves with it. A rejection of `f` counts as
 * not yet (a server still starting refuses connections).
 * @param what names what is awaited, in the error
 * @param ms how long to wait, in milliseconds
 * @param output what a child process printed, appended to the error
 * @throws Error "timed out after `ms` ms waiting for `what`" (with the output) when `ms` pass first
 */
export async function until<T>(
  what: string,
  f: () => T | Promise<T>,
  ms = 30_000,
  output?: () => string,
): Promise<Exclude<NonNullable<T>, false>> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await f();
      if (v) return v as Exclude<NonNullable<T>, false>;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      const why = last instanceof Error ? ` (last error: ${last.message})` : "";
      throw new Error(
        `timed out after ${ms} ms waiting for ${what}${why}${output ? `; it printed:\n${output()}` : ""}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
