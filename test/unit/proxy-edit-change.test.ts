// The Proxy edit form says, before saving, what the change does: nothing, labels only (no VM
// replaced), or a replaced VM naming the fields in the spec hash that changed.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadYamlCheck } from '@/components/proxies/cloud-init-check';
import { buildUpdate, describeProxyChange, editStateFrom } from '@/components/proxies/edit-form-model';
import { managedProxyView } from '@/test/support/proxy-view';

const view = managedProxyView({ labels: { pool: 'crawl' }, cloudInit: { bytes: 120 } });

describe('the Proxy edit form', () => {
  beforeAll(() => loadYamlCheck());

  it('sends the whole spec again and leaves the stored cloud-init out when kept', () => {
    const { input, errors } = buildUpdate(editStateFrom(view), view);
    expect(errors).toEqual({});
    expect(input).toEqual({
      mode: 'Managed',
      provider: 'kvm',
      placement: { zone: 'lab1', machineType: 'small', image: 'debian-12' },
      port: 3128,
      labels: { pool: 'crawl' },
    });
  });

  it.each([
    ['nothing changed', (state: ReturnType<typeof editStateFrom>) => state, { kind: 'none', message: expect.stringMatching(/^Nothing changes/) }],
    [
      'labels only',
      (state: ReturnType<typeof editStateFrom>) => ({ ...state, labels: [{ id: 1, key: 'pool', value: 'search' }] }),
      { kind: 'labels', message: expect.stringMatching(/labels only: the VM is not replaced/i) },
    ],
    [
      'the port',
      (state: ReturnType<typeof editStateFrom>) => ({ ...state, port: '8080' }),
      { kind: 'replace', message: expect.stringMatching(/VM is replaced.*port/) },
    ],
    [
      'the cloud-init',
      (state: ReturnType<typeof editStateFrom>) => ({ ...state, cloudInit: { source: 'paste' as const, networks: '', pasted: '#cloud-config\n{}\n' } }),
      { kind: 'replace', message: expect.stringMatching(/VM is replaced.*cloud-init/) },
    ],
  ])('says what changing %s does', (_name, edit, expected) => {
    const state = edit(editStateFrom(view));
    expect(describeProxyChange(view, buildUpdate(state, view).input)).toEqual(expected);
  });

  it('refuses a cloud-config with a YAML error on the cloud-init field', () => {
    const state = { ...editStateFrom(view), cloudInit: { source: 'paste' as const, networks: '', pasted: '#cloud-config\na: [\n' } };
    expect(buildUpdate(state, view).errors.cloudInit).toMatch(/YAML error on line/);
  });
});
