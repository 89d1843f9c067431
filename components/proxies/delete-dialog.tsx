'use client';
// Delete a Proxy, behind a confirmation that says what goes and what stays.
import type { ProxyView } from '@/lib/proxy-spec';
import { DeleteButton } from '@/components/ui/delete-button';
import { useDeleteProxy } from './queries';

export function DeleteProxyButton({ proxy }: { proxy: ProxyView }) {
  const remove = useDeleteProxy();
  return (
    <DeleteButton
      deleting={proxy.status.phase === 'Deleting' || proxy.deletionRequestedAt !== undefined}
      title={`Delete ${proxy.name}?`}
      confirmLabel="Delete Proxy"
      mutation={remove}
      remove={() => remove.mutateAsync(proxy.name)}
      leaveTo="/proxies"
    >
      {proxy.mode === 'Managed' ? (
        <p>
          This destroys the VM <strong className="break-all">{proxy.instanceName ?? proxy.name}</strong>
          {proxy.placement?.zone ? <> on {proxy.placement.zone}</> : null} with its disk and cloud-init seed, then removes the Proxy. Crawler clients stop
          getting its address at once. The cached base image stays on the host for other Proxies.
        </p>
      ) : (
        <p>This removes the Static Proxy record; the proxy at {proxy.address} itself is not touched.</p>
      )}
    </DeleteButton>
  );
}
