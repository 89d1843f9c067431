// A request path segment is decoded once; malformed percent-encoding names nothing (the page proxy
// then answers 404) instead of throwing a URIError.
import { describe, expect, it } from 'vitest';
import { decodeSegment } from '@/lib/path-segment';

describe('request path segments', () => {
  it('decode once', () => {
    expect(decodeSegment('lab%201')).toBe('lab 1');
    expect(decodeSegment('%2525')).toBe('%25');
  });

  it.each(['%', '%25%', '%zz', '%E2%82'])('treat %j as naming nothing', (segment) => {
    expect(decodeSegment(segment)).toBeUndefined();
  });
});
