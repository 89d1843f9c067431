// The session cookie's name, on its own so the request proxy (proxy.ts) can check for the cookie
// without loading anything that touches the store or node:crypto.
export const sessionCookieName = 'kvm2_session';
