'use client';
// Ends the session on the server, then leaves for the login page with an empty query cache.
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { loggedOutSchema } from '@/lib/api/logout';
import { apiRequest } from '@/components/api/client';

export function LogoutButton() {
  const queryClient = useQueryClient();
  const [pending, setPending] = useState(false);
  return (
    <button
      type="button"
      disabled={pending}
      onClick={async () => {
        setPending(true);
        try {
          await apiRequest('/api/auth/logout', loggedOutSchema, { method: 'POST' });
        } catch {
          // Already logged out, or the server is gone: the login page is the right place either way.
        }
        queryClient.clear();
        // A full page load, so nothing of the session stays in memory.
        window.location.assign(new URL('/login', window.location.origin));
      }}
      className="rounded-md px-3 py-2 text-sm font-medium text-slate-200 hover:bg-slate-800 hover:text-white focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-white disabled:opacity-60"
    >
      {pending ? 'Logging out…' : 'Log out'}
    </button>
  );
}
