// Body size limits per kind of request (the default, for Proxies, lives in request.ts).

/** Passwords and token names: a few hundred bytes at most. */
export const authBodyLimitBytes = 16 * 1024;
