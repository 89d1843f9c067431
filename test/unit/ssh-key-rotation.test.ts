import { writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { dialSsh, dialUnixSocket } from '@/server/ssh';
import { generateKey, Resources, startDialScenario, startTestSshServer } from './ssh-harness';

const resources = new Resources();
afterEach(() => resources.cleanup());

describe('rotating credentials needs no restart', () => {
  it('uses a rotated client key on the next dial', async () => {
    const scenario = await startDialScenario(resources);
    const first = await dialSsh(scenario.dialOptions);
    first.kill();

    // The host now trusts only a new key; the old one is refused from here on.
    const rotated = generateKey();
    scenario.clientKey.public = rotated.public;
    scenario.clientKey.publicFields = rotated.publicFields;
    await expect(dialSsh(scenario.dialOptions)).rejects.toMatchObject({ code: 'SSH_AUTH_FAILED' });

    await writeFile(scenario.keyFile, rotated.private);
    const second = await dialSsh(scenario.dialOptions);
    expect(second.dead).toBeUndefined();
    second.kill();
  });

  it('keeps an open connection open while the key file changes under it', async () => {
    const scenario = await startDialScenario(resources);
    const socket = await dialUnixSocket({ ...scenario.dialOptions, socketPath: scenario.echo.path });
    resources.add(() => void socket.destroy());

    await writeFile(scenario.keyFile, generateKey().private);
    socket.write('still');
    const reply = await new Promise<Buffer>((resolve) => socket.once('data', resolve));
    expect(reply.toString()).toBe('still');
  });

  it('uses an updated known_hosts on the next dial after a host key change', async () => {
    const scenario = await startDialScenario(resources);
    const newHostKey = generateKey();
    const rebuilt = await startTestSshServer(resources, { hostKey: newHostKey, authorizedKeys: () => [scenario.clientKey] });
    const options = { ...scenario.dialOptions, address: rebuilt.address };
    await writeFile(scenario.knownHostsFile, `[127.0.0.1]:${rebuilt.port} ${scenario.hostKey.publicFields}\n`);
    await expect(dialSsh(options)).rejects.toMatchObject({ code: 'SSH_HOST_KEY_CHANGED' });

    await writeFile(scenario.knownHostsFile, `[127.0.0.1]:${rebuilt.port} ${newHostKey.publicFields}\n`);
    const connection = await dialSsh(options);
    expect(connection.dead).toBeUndefined();
    connection.kill();
  });
});
