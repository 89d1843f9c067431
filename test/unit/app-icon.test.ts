// The app's icon: a file in public/ that the root layout's metadata points at, and valid SVG.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { metadata } from '@/app/layout';

const publicFile = (url: string) => fileURLToPath(new URL(`../../public${url}`, import.meta.url));

function iconUrls(): string[] {
  const icons = metadata.icons as { icon: { url: string }; apple: string };
  return [icons.icon.url, icons.apple];
}

describe('app icon', () => {
  it('is declared in the layout metadata and served from public/', () => {
    expect(iconUrls()).toEqual(['/icon.svg', '/icon.svg']);
    for (const url of iconUrls()) expect(existsSync(publicFile(url)), url).toBe(true);
  });

  it('is well-formed SVG with a title', () => {
    const svg = readFileSync(publicFile('/icon.svg'), 'utf8');
    expect(XMLValidator.validate(svg)).toBe(true);
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toContain('<title>kvm2 proxies</title>');
  });
});
