// Facts about the client of a request that the auth layer needs: its address (for login rate
// limits) and whether it came over HTTPS (for the cookie's Secure flag).

/**
 * The client's address: the last X-Forwarded-For entry, which is the one this server's own front
 * added (Next sets it from the socket when absent; a reverse proxy appends the peer it saw).
 * A client can still put any value there when nothing sits in front, which is why the login
 * limiter also has a global ceiling.
 */
export function clientAddress(request: Request): string {
  const forwarded = request.headers.get('x-forwarded-for');
  const last = forwarded?.split(',').at(-1)?.trim();
  if (last) return last;
  return request.headers.get('x-real-ip')?.trim() || 'unknown';
}

/** Whether the browser reached us over HTTPS (directly, or through a proxy that says so). */
export function isHttps(request: Request): boolean {
  const forwarded = request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  if (forwarded) return forwarded === 'https';
  return new URL(request.url).protocol === 'https:';
}
