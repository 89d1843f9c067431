import type { ReactNode } from 'react';
import { AppShell } from '@/components/app/app-shell';
import { LiveUpdates } from '@/components/app/live-updates';
import { liveResumePoint } from '@/server/http/live-resume';

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  return (
    <LiveUpdates resumeFrom={await liveResumePoint()}>
      <AppShell>{children}</AppShell>
    </LiveUpdates>
  );
}
