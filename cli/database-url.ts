/** The database URL a command was given: its argument, else `DATABASE_URL`. */

/**
 * @returns the URL, or undefined when neither the argument nor `DATABASE_URL` gives one
 */
export function databaseUrl(arg: string | undefined): string | undefined {
  return arg ?? (process.env.DATABASE_URL || undefined);
}

/** The message a command that takes the URL as its argument prints when {@link databaseUrl} finds none. */
export const NO_DATABASE_URL = "give the database URL as an argument or in DATABASE_URL";

/** The same for a command that takes it as the `--database-url` flag (`resc serve`). */
export const NO_DATABASE_URL_FLAG = "give the database URL with --database-url or in DATABASE_URL";
