import type { ReactNode } from 'react';
import { AppShell } from '@/components/app/app-shell';
import { LiveUpdates } from '@/components/app/live-updates';

export default function DashboardLayout({ children }: { children: ReactNode }) {
  return (
    <LiveUpdates>
      <AppShell>{children}</AppShell>
    </LiveUpdates>
  );
}
