/**
 * "Did you mean …?" suggestions for unknown names (attributes, types,
 * settings, ops). Uses the optimal-string-alignment edit distance, so a
 * swapped pair of letters (`@sortabel`) costs one edit.
 */

/** Edit distance between `a` and `b`, counting insertions, deletions, substitutions and adjacent transpositions as 1 each. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = [];
  for (let i = 0; i <= a.length; i++) d.push([i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate closest to `name` (case-insensitive), or undefined when
 * none is within `maxDistance` edits (default: a third of the name's length,
 * at least 2), so unrelated names are not suggested.
 */
export function closest(name: string, candidates: Iterable<string>, maxDistance?: number): string | undefined {
  const lower = name.toLowerCase();
  const limit = maxDistance ?? Math.max(2, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const dist = editDistance(lower, c.toLowerCase());
    if (dist < bestDistance) {
      best = c;
      bestDistance = dist;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/**
 * ` Did you mean "x"?` or the empty string, ready to append to a message.
 * Besides near spellings it finds a name written as part of a longer one
 * (`page_size` for `default_page_size` and `max_page_size`), naming every
 * such candidate (at most three).
 */
export function didYouMean(name: string, candidates: Iterable<string>, prefix = ""): string {
  const list = [...candidates];
  // Fewer edits than half the name: "b" is not a slip for "a", nor "nope" for "code".
  const c = closest(name, list, Math.min(2, Math.ceil(name.length / 2) - 1));
  if (c !== undefined) return ` Did you mean "${prefix}${c}"?`;
  const lower = name.toLowerCase();
  const parts =
    lower.length >= 3
      ? list.filter((x) => {
          const l = x.toLowerCase();
          return l.includes(lower) || (l.length >= 3 && lower.includes(l));
        })
      : [];
  if (parts.length === 0 || parts.length > 3) return "";
  const quoted = parts.map((x) => `"${prefix}${x}"`);
  return ` Did you mean ${quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}`}?`;
}
