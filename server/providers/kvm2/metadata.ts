// kvm2's mark on its domains: one element in kvm2's own XML namespace inside the domain's
// <metadata>. libvirt has no labels, so this is how orphan GC recognises kvm2's VMs and how a
// repeat Create tells whether a same-named domain belongs to its Proxy. libvirt may hand the
// element back with the prefix or with a default namespace; both parse.
import { ErrPermanent } from '@/server/providers/errors';
import { buildXml, childTags, parseXml, textOf, XmlSyntaxError, type XmlElement, type XmlValue } from './xml-codec';

/** kvm2's namespace (kept as the original operator's, so its domains stay recognisable). */
export const metadataURI = 'https://gitea.home.hrajfrisbee.cz/kacerr/egress-proxies-operator/kvm2';
/** The first-generation `kvm` provider's namespace: its domains are recognised, never adopted. */
export const gen1MetadataURI = 'https://gitea.home.hrajfrisbee.cz/kacerr/egress-proxies-operator/kvm';
export const metadataPrefix = 'kvm2';
export const metadataElementName = 'instance';

export interface InstanceMetadata {
  managed: boolean;
  /** the owning Proxy's UID; empty when the mark carries none */
  uid: string;
  /** RFC 3339; empty when the mark carries none */
  created: string;
}

export class CorruptMetadataError extends ErrPermanent {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`corrupt kvm2 metadata: ${reason}`, options);
  }
}

/** RFC 3339 in UTC with whole seconds, e.g. 2026-09-16T17:42:11Z. */
export function formatCreated(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const rfc3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** The element as a builder node, `<kvm2:instance xmlns:kvm2="...">`, for the domain XML. */
export function metadataNode(metadata: InstanceMetadata): XmlElement {
  const field = (name: string) => `${metadataPrefix}:${name}`;
  return {
    [field(metadataElementName)]: {
      [`@_xmlns:${metadataPrefix}`]: metadataURI,
      [field('managed')]: String(metadata.managed),
      [field('uid')]: metadata.uid,
      [field('created')]: metadata.created,
    },
  };
}

/** The element alone as XML, e.g. for DomainSetMetadata. */
export function buildMetadataXML(metadata: InstanceMetadata): string {
  return buildXml(metadataNode(metadata));
}

type Scope = ReadonlyMap<string, string>;

interface NamespacedElement {
  uri: string | undefined;
  local: string;
  value: XmlValue;
  scope: Scope;
}

function scopeOf(value: XmlValue, parent: Scope): Scope {
  if (typeof value !== 'object' || Array.isArray(value)) return parent;
  const declarations = Object.entries(value).filter(([key]) => key === '@_xmlns' || key.startsWith('@_xmlns:'));
  if (declarations.length === 0) return parent;
  const scope = new Map(parent);
  for (const [key, uri] of declarations) {
    if (typeof uri === 'string') scope.set(key === '@_xmlns' ? '' : key.slice('@_xmlns:'.length), uri);
  }
  return scope;
}

/** The child elements of `element` with their namespace URIs resolved. */
function namespacedChildren(element: XmlElement, parentScope: Scope): NamespacedElement[] {
  return childTags(element).flatMap((tag) => {
    const raw = element[tag];
    const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
    const colon = tag.indexOf(':');
    const prefix = colon < 0 ? '' : tag.slice(0, colon);
    const local = colon < 0 ? tag : tag.slice(colon + 1);
    return values.map((value) => {
      const scope = scopeOf(value, parentScope);
      return { uri: scope.get(prefix), local, value, scope };
    });
  });
}

function fieldText(fields: NamespacedElement[], name: string): string | undefined {
  const matches = fields.filter((field) => field.local === name);
  if (matches.length === 0) return undefined;
  if (matches.length > 1) throw new CorruptMetadataError(`${name} appears ${matches.length} times`);
  const { value } = matches[0] as NamespacedElement;
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && !Array.isArray(value) && childTags(value).length === 0) return textOf(value) ?? '';
  throw new CorruptMetadataError(`${name} is not plain text`);
}

function readInstance(element: NamespacedElement): InstanceMetadata {
  if (typeof element.value !== 'object' || Array.isArray(element.value)) {
    throw new CorruptMetadataError('the instance element has no fields');
  }
  const fields = namespacedChildren(element.value, element.scope).filter((field) => field.uri === metadataURI);
  const managed = fieldText(fields, 'managed');
  if (managed === undefined) throw new CorruptMetadataError('managed is missing');
  if (managed !== 'true' && managed !== 'false') {
    throw new CorruptMetadataError(`managed is ${JSON.stringify(managed)}, not true or false`);
  }
  const created = fieldText(fields, 'created') ?? '';
  if (created !== '' && (!rfc3339.test(created) || Number.isNaN(Date.parse(created)))) {
    throw new CorruptMetadataError(`created is ${JSON.stringify(created)}, not an RFC 3339 time`);
  }
  return { managed: managed === 'true', uid: fieldText(fields, 'uid') ?? '', created };
}

function instancesIn(container: XmlElement, uri: string, scope: Scope = new Map()): NamespacedElement[] {
  return namespacedChildren(container, scope).filter((element) => element.uri === uri && element.local === metadataElementName);
}

/**
 * kvm2's mark among the children of a domain's <metadata> element: undefined when there is none,
 * CorruptMetadataError when it is there but unreadable or repeated.
 */
export function findInstanceMetadata(metadata: XmlElement | undefined): InstanceMetadata | undefined {
  if (!metadata) return undefined;
  const instances = instancesIn(metadata, metadataURI);
  if (instances.length > 1) throw new CorruptMetadataError(`${instances.length} instance elements`);
  return instances[0] ? readInstance(instances[0]) : undefined;
}

/** Whether <metadata> carries the first-generation kvm provider's element. */
export function hasGen1Mark(metadata: XmlElement | undefined): boolean {
  return metadata ? instancesIn(metadata, gen1MetadataURI).length > 0 : false;
}

/**
 * Parses the element alone: as DomainGetMetadata returns it, which is with no namespace at all
 * (libvirt strips it; the URI was the query), or prefixed, or in a default namespace.
 */
export function parseMetadataXML(xml: string): InstanceMetadata {
  let document: XmlElement;
  try {
    document = parseXml(xml, 'kvm2 metadata');
  } catch (err) {
    if (err instanceof XmlSyntaxError) throw new CorruptMetadataError(err.message, { cause: err });
    throw err;
  }
  // Unqualified names stand for kvm2's namespace here, so libvirt's stripped form resolves.
  const instances = instancesIn(document, metadataURI, new Map([['', metadataURI]]));
  if (instances.length > 1) throw new CorruptMetadataError(`${instances.length} instance elements`);
  const found = instances[0] ? readInstance(instances[0]) : undefined;
  if (!found) throw new CorruptMetadataError(`no ${metadataElementName} element in namespace ${metadataURI}`);
  return found;
}
