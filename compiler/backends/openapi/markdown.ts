/**
 * Doc comments as OpenAPI descriptions. OpenAPI descriptions are
 * CommonMark, where `<token>` is raw HTML that documentation pages drop:
 * "send the token as Authorization: Bearer <token>" showed "Bearer " on
 * /docs (docs/decisions/1011-openapi-lint-clean.md). A `///` comment is text, not HTML, so its `<`, `>`
 * and `&` outside code spans are written as entities; inside backticks
 * they are left alone, since a code span shows them literally
 * (docs/decisions/1012-doc-comments-are-text.md).
 */

/**
 * Escapes HTML-significant characters of `doc` outside Markdown code spans.
 * @param doc the comment text, lines joined with `\n`
 * @returns the same text, safe to render as CommonMark
 */
export function docText(doc: string): string {
  // Odd-numbered pieces of a split on backtick runs are code spans (a run opens and the same run closes).
  return doc
    .split(/(`+[^`]*`+)/)
    .map((piece, i) => (i % 2 === 1 ? piece : piece.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")))
    .join("");
}
