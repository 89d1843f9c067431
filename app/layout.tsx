import type { Metadata, Viewport } from 'next';
import { connection } from 'next/server';
import type { ReactNode } from 'react';
import { QueryProvider } from '@/components/app/query-provider';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'kvm2 proxies', template: '%s · kvm2 proxies' },
  description: 'Egress proxies as VMs on your own libvirt/KVM hosts',
  // public/icon.svg: the tab icon and the icon a phone or desktop uses for the app.
  icons: { icon: { url: '/icon.svg', type: 'image/svg+xml' }, apple: '/icon.svg' },
};

export const viewport: Viewport = { width: 'device-width', initialScale: 1 };

// Every page renders per request: Next can put the request's CSP nonce (proxy.ts) only on scripts
// of a page it renders then, not on one prerendered at build time.
export default async function RootLayout({ children }: { children: ReactNode }) {
  await connection();
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased">
        <QueryProvider>{children}</QueryProvider>
      </body>
    </html>
  );
}
