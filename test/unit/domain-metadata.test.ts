import { describe, expect, it } from 'vitest';
import { isPermanent } from '@/server/providers/errors';
import { buildMetadataXML, CorruptMetadataError, formatCreated, gen1MetadataURI, metadataURI, parseMetadataXML } from '@/server/providers/kvm2/metadata';
import { parseDomainXML } from '@/server/providers/kvm2/xml-parse';

const mark = { managed: true, uid: '0f3a-uid', created: '2026-09-16T17:42:11Z' };

describe('kvm2 metadata', () => {
  it('keeps the namespaces of the original operator', () => {
    expect(metadataURI).toBe('https://gitea.home.hrajfrisbee.cz/kacerr/egress-proxies-operator/kvm2');
    expect(gen1MetadataURI).toBe('https://gitea.home.hrajfrisbee.cz/kacerr/egress-proxies-operator/kvm');
  });

  it('writes created as RFC 3339 with whole seconds in UTC', () => {
    expect(formatCreated(new Date(Date.UTC(2026, 8, 16, 17, 42, 11, 987)))).toBe('2026-09-16T17:42:11Z');
  });

  it('round-trips through the prefixed form it emits', () => {
    const xml = buildMetadataXML(mark);
    expect(xml).toMatch(/^<kvm2:instance xmlns:kvm2="https:\/\/gitea/);
    expect(parseMetadataXML(xml)).toEqual(mark);
  });

  it.each([
    {
      form: 'namespace-less (what DomainGetMetadata returns)',
      xml: '<instance>\n  <managed>true</managed>\n  <uid>0f3a-uid</uid>\n  <created>2026-09-16T17:42:11Z</created>\n</instance>\n',
    },
    {
      form: 'default namespace',
      xml: `<instance xmlns="${metadataURI}"><managed>true</managed><uid>0f3a-uid</uid><created>2026-09-16T17:42:11Z</created></instance>`,
    },
    {
      form: 'another prefix',
      xml: `<x:instance xmlns:x='${metadataURI}'>\n  <x:managed>true</x:managed>\n  <x:uid>0f3a-uid</x:uid>\n  <x:created>2026-09-16T17:42:11Z</x:created>\n</x:instance>`,
    },
  ])('parses the $form form', ({ xml }) => {
    expect(parseMetadataXML(xml)).toEqual(mark);
  });

  it('reads missing uid and created as empty', () => {
    expect(parseMetadataXML(`<instance xmlns="${metadataURI}"><managed>true</managed></instance>`)).toEqual({
      managed: true,
      uid: '',
      created: '',
    });
  });

  it('ignores fields from other namespaces', () => {
    const xml = `<kvm2:instance xmlns:kvm2="${metadataURI}" xmlns:o="urn:other"><kvm2:managed>true</kvm2:managed><o:uid>not-ours</o:uid></kvm2:instance>`;
    expect(parseMetadataXML(xml).uid).toBe('');
  });

  it.each([
    { what: 'malformed XML', xml: '<instance xmlns="x"><managed>true</instance>', reason: /not well-formed/ },
    { what: 'another namespace', xml: `<instance xmlns="${gen1MetadataURI}"><managed>true</managed></instance>`, reason: /no instance element in namespace/ },
    { what: 'no managed', xml: `<instance xmlns="${metadataURI}"><uid>u</uid></instance>`, reason: /managed is missing/ },
    {
      what: 'managed not boolean',
      xml: `<instance xmlns="${metadataURI}"><managed>maybe</managed></instance>`,
      reason: /managed is "maybe", not true or false/,
    },
    {
      what: 'created not a time',
      xml: `<instance xmlns="${metadataURI}"><managed>true</managed><created>yesterday</created></instance>`,
      reason: /created is "yesterday", not an RFC 3339 time/,
    },
    { what: 'uid twice', xml: `<instance xmlns="${metadataURI}"><managed>true</managed><uid>a</uid><uid>b</uid></instance>`, reason: /uid appears 2 times/ },
    { what: 'uid with children', xml: `<instance xmlns="${metadataURI}"><managed>true</managed><uid><a/></uid></instance>`, reason: /uid is not plain text/ },
  ])('calls $what corrupt metadata, permanently', ({ xml, reason }) => {
    let caught: unknown;
    try {
      parseMetadataXML(xml);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(CorruptMetadataError);
    expect(isPermanent(caught)).toBe(true);
    expect((caught as Error).message).toMatch(/^corrupt kvm2 metadata: /);
    expect((caught as Error).message).toMatch(reason);
  });

  it('recognises a first-generation kvm domain without taking it for a kvm2 one', () => {
    const xml = `<domain type='kvm'><name>proxy-old</name><metadata><kvm:instance xmlns:kvm="${gen1MetadataURI}"><kvm:managed>true</kvm:managed></kvm:instance></metadata></domain>`;
    expect(parseDomainXML(xml)).toMatchObject({ metadata: undefined, gen1Marked: true });
  });

  it("finds the kvm2 mark among other applications' metadata", () => {
    const xml = `<domain type='kvm'><name>d</name><metadata><app:info xmlns:app="urn:app">x</app:info>${buildMetadataXML(mark)}</metadata></domain>`;
    expect(parseDomainXML(xml).metadata).toEqual(mark);
  });

  it('calls two kvm2 marks in one domain corrupt', () => {
    const xml = `<domain type='kvm'><name>d</name><metadata>${buildMetadataXML(mark)}<instance xmlns="${metadataURI}"><managed>true</managed></instance></metadata></domain>`;
    expect(() => parseDomainXML(xml)).toThrow(CorruptMetadataError);
  });
});
