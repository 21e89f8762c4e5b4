/**
 * Dates, times and timestamps as request text: validated (a real calendar
 * date, a real clock time) and put in one canonical spelling PostgreSQL
 * reads the same way whatever its DateStyle or session time zone
 * (docs/decisions/0301-value-codecs.md).
 */

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** True for `YYYY-MM-DD` naming a real date of years 0001–9999. */
export function isDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return y >= 1 && mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo);
}

/**
 * A date as read from the service: `YYYY-MM-DD`, or midnight UTC spelled
 * as a timestamp (`2022-02-14T00:00:00Z`, the form reads return, spec:
 * JSON forms; also `T00:00`, fractions of zero, `+00:00`, `-00:00`), so a
 * value read can be written back unchanged (docs/http.md). Any other time
 * or offset is refused: a date has no time of day, and dropping one would
 * lose what the client meant (docs/decisions/0310-date-forms.md).
 *
 * @returns the date as `YYYY-MM-DD`, or a detail sentence saying what is wrong
 */
export function readDate(text: string): TimestampResult {
  const expected = "expected a date YYYY-MM-DD (or midnight UTC, YYYY-MM-DDT00:00:00Z)";
  const m = /^(\d{4}-\d{2}-\d{2})(?:[Tt](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|z|[+-]\d{2}:\d{2})?)?$/.exec(text);
  if (!m || !isDate(m[1]) || (m[2] !== undefined && !isTime(m[2]))) return { ok: false, detail: expected };
  const [, date, time, zone] = m;
  if (time === undefined) return { ok: true, text: date };
  const midnight = /^00:00(?::00(?:\.0+)?)?$/.test(time);
  const utc = zone === undefined || /^(Z|z|[+-]00:00)$/.test(zone);
  if (!midnight || !utc) {
    return { ok: false, detail: `a date has no time of day: ${expected}, not ${time}${zone ?? ""}` };
  }
  return { ok: true, text: date };
}

const TIME = /^(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?$/;

/** True for `HH:MM`, `HH:MM:SS` or `HH:MM:SS.fraction` naming a real clock time (no leap second, no 24:00). */
export function isTime(text: string): boolean {
  const m = TIME.exec(text);
  if (!m) return false;
  return Number(m[1]) <= 23 && Number(m[2]) <= 59 && (m[3] === undefined || Number(m[3]) <= 59);
}

/** A time of day with its offset; a space stands for an unencoded `+`, as in {@link TIMESTAMP}. */
const TIME_WITH_ZONE = /^(\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|z|[+\- ]\d{2}(?::\d{2}){0,2})$/;

/**
 * Reads a `time with time zone` value: `HH:MM[:SS[.f]]` and an offset
 * (`Z`, `±HH`, `±HH:MM`, `±HH:MM:SS`, the forms PostgreSQL prints and
 * reads). The offset is required, as on a timestamptz: without one
 * PostgreSQL would apply the session time zone (docs/decisions/0301-value-codecs.md).
 *
 * @returns canonical text `HH:MM[:SS[.f]]±HH[:MM[:SS]]` (`Z` as `+00:00`), or a detail sentence saying what is wrong
 */
export function readTimeWithZone(text: string): TimestampResult {
  const expected = "expected a time with an offset HH:MM[:SS[.fraction]]±HH:MM, e.g. 11:30:37+02:00";
  const m = TIME_WITH_ZONE.exec(text);
  if (!m || !isTime(m[1]!)) return { ok: false, detail: expected };
  const zone = m[2]!;
  if (zone === "Z" || zone === "z") return { ok: true, text: `${m[1]}+00:00` };
  const [hh, mm = 0, ss = 0] = zone.slice(1).split(":").map(Number);
  if (hh! > 15 || mm > 59 || ss > 59) return { ok: false, detail: `${expected} (offset out of range)` };
  return { ok: true, text: `${m[1]}${zone[0] === "-" ? "-" : "+"}${zone.slice(1)}` };
}

/**
 * A timestamp split at its parts. The offset group also takes a space in
 * place of `+`: an unencoded `+` in a query string arrives as a space, and
 * `2005-05-25T10:00:00 02:00` has no other reading.
 */
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})(?:[Tt ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|z|[+\- ]\d{2}:\d{2})?)?$/;

/** The result of reading a timestamp: canonical text, or why it was refused. */
export type TimestampResult = { ok: true; text: string } | { ok: false; detail: string };

/**
 * Reads an RFC 3339 / ISO 8601 timestamp.
 *
 * @param withZone true for `timestamptz`: an offset (`Z` or `±HH:MM`) is
 *   required, because without one PostgreSQL would apply the session time
 *   zone; a bare date means midnight UTC. False for `timestamp`: an offset
 *   is refused, because PostgreSQL would silently drop it; a bare date means
 *   midnight.
 * @returns canonical text `YYYY-MM-DDTHH:MM[:SS[.f]](Z|±HH:MM)` (the offset
 *   only with a zone), or a detail sentence saying what is wrong
 */
export function readTimestamp(text: string, withZone: boolean): TimestampResult {
  const m = TIMESTAMP.exec(text);
  const expected = withZone
    ? "expected an RFC 3339 timestamp with an offset, e.g. 2005-05-25T11:30:37Z, or a date (midnight UTC)"
    : "expected an ISO 8601 timestamp without offset, e.g. 2005-05-25T11:30:37, or a date (midnight)";
  if (!m || !isDate(m[1]) || (m[2] !== undefined && !isTime(m[2]))) return { ok: false, detail: expected };
  const [, date, time, zone] = m;
  if (time === undefined) return { ok: true, text: `${date}T00:00:00${withZone ? "Z" : ""}` };
  if (!withZone) {
    if (zone !== undefined) return { ok: false, detail: `${expected} (this column has no time zone)` };
    return { ok: true, text: `${date}T${time}` };
  }
  if (zone === undefined) return { ok: false, detail: expected };
  if (zone === "Z" || zone === "z") return { ok: true, text: `${date}T${time}Z` };
  const sign = zone[0] === "-" ? "-" : "+";
  const [hh, mm] = zone.slice(1).split(":").map(Number);
  if (hh > 15 || mm > 59) return { ok: false, detail: `${expected} (offset out of range)` };
  return { ok: true, text: `${date}T${time}${sign}${zone.slice(1)}` };
}
