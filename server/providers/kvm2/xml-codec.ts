// The one XML builder and parser configuration kvm2 uses, so every document is escaped the same
// way (text and attribute values alike) and every parse decodes entities the same way.
import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';

/** A parsed element: attributes under `@_name`, text under `#text`, children by tag name. */
export type XmlElement = { [key: string]: XmlValue };
export type XmlValue = string | XmlElement | XmlValue[];

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  format: true,
  indentBy: '  ',
  suppressEmptyNode: true,
  processEntities: true,
});

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  htmlEntities: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

export function buildXml(document: XmlElement): string {
  return builder.build(document) as string;
}

export class XmlSyntaxError extends Error {
  readonly code = 'ERR_XML_SYNTAX';
  constructor(message: string) {
    super(message);
    this.name = 'XmlSyntaxError';
  }
}

/** Parses well-formed XML; anything else throws XmlSyntaxError naming `what` and the position. */
export function parseXml(xml: string, what: string): XmlElement {
  const verdict = XMLValidator.validate(xml);
  if (verdict !== true) {
    throw new XmlSyntaxError(`${what} is not well-formed XML (line ${verdict.err.line}, column ${verdict.err.col}: ${verdict.err.msg})`);
  }
  return parser.parse(xml) as XmlElement;
}

const isElement = (value: XmlValue | undefined): value is XmlElement => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every child element named `tag`, as elements (a text-only child becomes `{ '#text': ... }`). */
export function childElements(parent: XmlElement | undefined, tag: string): XmlElement[] {
  const value = parent?.[tag];
  if (value === undefined) return [];
  const items = Array.isArray(value) ? value : [value];
  return items.map((item) => (isElement(item) ? item : { '#text': typeof item === 'string' ? item : '' }));
}

/** The first child element named `tag`. */
export function childElement(parent: XmlElement | undefined, tag: string): XmlElement | undefined {
  return childElements(parent, tag)[0];
}

export function textOf(element: XmlElement | undefined): string | undefined {
  const text = element?.['#text'];
  return typeof text === 'string' ? text : undefined;
}

export function attributeOf(element: XmlElement | undefined, name: string): string | undefined {
  const value = element?.[`@_${name}`];
  return typeof value === 'string' ? value : undefined;
}

/** Child element tag names of `element` (attributes and text left out). */
export function childTags(element: XmlElement): string[] {
  return Object.keys(element).filter((key) => !key.startsWith('@_') && key !== '#text');
}
