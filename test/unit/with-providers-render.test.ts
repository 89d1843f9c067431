// A create form (Proxy or set) before it has providers: the empty state says why hosts are needed
// and links to the hosts page; with providers, the form gets them.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ConfigProvider, ConfigSummary } from '@/lib/api/config';
import { WithProviders } from '@/components/config/with-providers';
import { configKeys } from '@/components/query-keys';

const provider: ConfigProvider = {
  name: 'kvm2-home',
  type: 'kvm2',
  available: true,
  capabilities: { hosts: true, setup: true, placement: true, console: true },
};

function render(providers: ConfigProvider[]) {
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, retry: false } } });
  const summary: ConfigSummary = { providers };
  client.setQueryData(configKeys.summary, summary);
  const form = (given: ConfigProvider[]) => createElement('p', null, `form for ${given.map((entry) => entry.name).join(', ')}`);
  return renderToStaticMarkup(
    createElement(QueryClientProvider, { client }, createElement(WithProviders, { whyHosts: 'Proxies run on hosts.', children: form })),
  );
}

describe('a create form waiting for providers', () => {
  it('shows the empty state with the reason and a link to the hosts page when none is configured', () => {
    const html = render([]);
    expect(html).toContain('No provider is configured');
    expect(html).toContain('Proxies run on hosts.');
    expect(html).toContain('href="/hosts"');
    expect(html).not.toContain('form for');
  });

  it('renders the form with the configured providers', () => {
    const html = render([provider]);
    expect(html).toContain('form for kvm2-home');
    expect(html).not.toContain('No provider is configured');
  });
});
