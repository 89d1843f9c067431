import { describe, expect, it } from 'vitest';
import { settingsFromEnv } from '@/server/control/settings';

describe('SSH_DIALS_MAX and SSH_DIALS_PER_ADDRESS', () => {
  it('default to 32 dials in flight per process and 4 per address (under sshd MaxStartups 10)', () => {
    expect(settingsFromEnv({})).toMatchObject({ sshDialsMax: 32, sshDialsPerAddress: 4 });
  });

  it('read positive integers', () => {
    expect(settingsFromEnv({ SSH_DIALS_MAX: '100', SSH_DIALS_PER_ADDRESS: ' 8 ' })).toMatchObject({ sshDialsMax: 100, sshDialsPerAddress: 8 });
  });

  it.each([
    ['SSH_DIALS_MAX', '0'],
    ['SSH_DIALS_MAX', 'many'],
    ['SSH_DIALS_PER_ADDRESS', '2.5'],
    ['SSH_DIALS_PER_ADDRESS', '-1'],
  ])('refuses %s=%s, naming the variable', (variable, value) => {
    expect(() => settingsFromEnv({ [variable]: value })).toThrow(new RegExp(`^${variable}: .*integer from 1 to 10000`));
  });
});
