// The frame of every signed-in page: a skip link, the header with navigation, whether the page is
// live (the dashboard layout opens the live stream around it), and logout; the page.
import Link from 'next/link';
import type { ReactNode } from 'react';
import { LiveIndicator } from './live-updates';
import { LogoutButton } from './logout-button';
import { NavLinks } from './nav-links';

export function AppShell({ children }: { children: ReactNode }) {
  return (
    <div className="min-h-screen">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:fixed focus:left-2 focus:top-2 focus:z-50 focus:rounded-md focus:bg-white focus:px-3 focus:py-2 focus:text-sm focus:font-medium focus:text-blue-800 focus:shadow"
      >
        Skip to content
      </a>
      <header className="bg-slate-900 text-white">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-2">
          <Link
            href="/"
            className="rounded-md py-2 text-base font-semibold tracking-tight focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-white"
          >
            kvm2 proxies
          </Link>
          <nav aria-label="Main" className="order-3 w-full min-w-0 sm:order-none sm:w-auto sm:flex-1">
            <NavLinks />
          </nav>
          <div className="ml-auto flex items-center gap-2 sm:ml-0">
            <LiveIndicator />
            <LogoutButton />
          </div>
        </div>
      </header>
      <main id="main" tabIndex={-1} className="mx-auto max-w-7xl px-4 py-6 focus:outline-none">
        {children}
      </main>
    </div>
  );
}
