// What the Gateway page says when the server runs without the gateway (GATEWAY_PORT=0): that it is
// off, and the two settings that turn it on.
import { Panel } from '@/components/ui/panel';

export function GatewayOff() {
  return (
    <Panel title="The gateway is off">
      <div className="space-y-2 text-sm text-slate-800">
        <p>
          The server was started with <code className="font-mono">GATEWAY_PORT=0</code>, so no crawler can connect through the dashboard.
        </p>
        <p>To turn it on, in the server&apos;s environment:</p>
        <ul className="list-disc space-y-1 pl-5">
          <li>
            set <code className="font-mono">GATEWAY_PORT</code> to the port crawlers connect to (8888 when it is not set at all);
          </li>
          <li>
            set <code className="font-mono">GATEWAY_HOST</code> to the address crawlers reach this machine at, or 0.0.0.0 for every interface (it defaults to
            the dashboard&apos;s own bind address);
          </li>
          <li>restart the dashboard, and create a gateway token here or in Settings.</li>
        </ul>
      </div>
    </Panel>
  );
}
