// One real-guest test session: the guest image (built or cached), a providers config offering it,
// the app served by the e2e harness's `next start` against that config, and an API client logged
// in as the admin. The proxy probes target the lab image server as the VMs reach it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppServer, startApp } from '@/test/e2e/harness/app-server';
import { ApiClient } from './api-client';
import { ensureGuestImage, type GuestImage, type GuestLab, loadGuestLab, removeGuestBaseImages, writeGuestProvidersConfig } from './guest-lab';

export interface GuestSession {
  lab: GuestLab;
  image: GuestImage;
  app: AppServer;
  api: ApiClient;
  /** what the proxy probes fetch through Squid */
  probeUrl: string;
  close(): Promise<void>;
}

/** Loops fast enough that a phase change shows within seconds, not the defaults' tens of seconds. */
const guestLoops: Record<string, string> = {
  PROVISIONING_POLL_INTERVAL: '3s',
  PROBE_INTERVAL: '5s',
  PROBE_TIMEOUT: '5s',
  RECONCILE_BACKOFF_BASE: '1s',
  RECONCILE_BACKOFF_CAP: '10s',
  PROVIDER_CHECK_INTERVAL: '30s',
};

/** `env`: server settings on top of the session's, from the lab (e.g. IP_ECHO_URL). */
export async function openGuestSession(options: { env?: (lab: GuestLab) => Record<string, string> } = {}): Promise<GuestSession> {
  const lab = loadGuestLab();
  const image = await ensureGuestImage(lab);
  // Cached bases of an earlier run (maybe of another image build) must not be adopted.
  await removeGuestBaseImages(lab);
  const configDir = mkdtempSync(join(tmpdir(), 'kvm2-guest-config-'));
  const probeUrl = `${lab.guest.imageServerVmUrl}/probe`;
  let app: AppServer | undefined;
  try {
    const providersConfig = writeGuestProvidersConfig({ lab, image, dir: configDir });
    app = await startApp({ providersConfig, env: { ...guestLoops, PROBE_URL: probeUrl, ...options.env?.(lab) } });
    const api = await ApiClient.logIn({ url: app.url, password: app.password });
    const started = app;
    return {
      lab,
      image,
      app: started,
      api,
      probeUrl,
      async close() {
        await started.stop();
        await removeGuestBaseImages(lab);
        rmSync(configDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await app?.stop();
    rmSync(configDir, { recursive: true, force: true });
    throw err;
  }
}
