import type { Metadata } from 'next';
import { PasswordForm } from '@/components/settings/password-form';
import { SshIdentityPanel } from '@/components/settings/ssh-identity-panel';
import { TokensPanel } from '@/components/settings/tokens-panel';
import { PageHeader, Panel } from '@/components/ui/panel';

export const metadata: Metadata = { title: 'Settings' };

export default function SettingsPage() {
  return (
    <>
      <PageHeader
        title="Settings"
        description="The SSH key the server logs in to hosts with, API tokens for crawler clients and metrics, gateway tokens for crawlers using the gateway, and the admin password."
      />
      <div className="space-y-6">
        <Panel title="SSH identity">
          <SshIdentityPanel />
        </Panel>
        <Panel title="API tokens">
          <TokensPanel />
        </Panel>
        <Panel title="Gateway tokens">
          <TokensPanel kind="gateway" />
        </Panel>
        <Panel title="Admin password">
          <PasswordForm />
        </Panel>
      </div>
    </>
  );
}
