// One segment of a request path as it came over the wire, percent-decoded. Malformed encoding
// (`%`, `%zz`, half a UTF-8 sequence) names no page: undefined, which proxy.ts answers with 404
// (Next itself would fail with a 500). Pages get their params decoded once by Next and must not
// decode them again.
export function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
