// Ready-made snippets for the Gateway page: the chosen proxy URL in curl, Python requests, Scrapy
// and Playwright, each in the form its tool reads. curl, requests and Scrapy take the URL and
// percent-decode its user and password; Playwright takes server, username and password apart, as
// they are (Chromium ignores credentials in a proxy URL). test/unit/gateway-snippets.test.ts runs
// each one through its own parser to prove it.
import { type GatewayCredentials, gatewayServer, gatewayUrl } from './gateway-url';

export type SnippetTool = 'curl' | 'requests' | 'scrapy' | 'playwright';

export interface Snippet {
  tool: SnippetTool;
  title: string;
  language: 'shell' | 'python' | 'javascript';
  code: string;
}

/** Where the snippets send their request: a page any crawler may fetch. */
export const exampleTarget = 'https://example.com/';

/** `text` as one POSIX shell word. */
export const shellQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/** `text` as a string literal JavaScript and Python both read back exactly (JSON's is both). */
const literal = (text: string): string => JSON.stringify(text);

function curl(url: string): string {
  return `curl --proxy ${shellQuote(url)} ${shellQuote(exampleTarget)}`;
}

function requests(url: string): string {
  return [
    'import requests',
    '',
    `proxy = ${literal(url)}`,
    'proxies = {"http": proxy, "https": proxy}',
    `response = requests.get(${literal(exampleTarget)}, proxies=proxies, timeout=30)`,
    'print(response.status_code)',
  ].join('\n');
}

function scrapy(url: string): string {
  return [
    'import scrapy',
    '',
    '# For every request of a project instead: export HTTPS_PROXY and',
    '# HTTP_PROXY with this URL before `scrapy crawl`.',
    `PROXY = ${literal(url)}`,
    '',
    '',
    'class GatewaySpider(scrapy.Spider):',
    '    name = "gateway"',
    '',
    '    # Scrapy 2.13+; before: def start_requests(self)',
    '    async def start(self):',
    `        yield scrapy.Request(${literal(exampleTarget)}, meta={"proxy": PROXY})`,
    '',
    '    def parse(self, response):',
    '        yield {"url": response.url, "status": response.status}',
  ].join('\n');
}

function playwright(credentials: GatewayCredentials): string {
  return [
    "import { chromium } from 'playwright';",
    '',
    '// Playwright takes the credentials apart from the server, not percent-encoded.',
    'const browser = await chromium.launch({',
    '  proxy: {',
    `    server: ${literal(gatewayServer(credentials))},`,
    `    username: ${literal(credentials.username)},`,
    `    password: ${literal(credentials.password)},`,
    '  },',
    '});',
    'const page = await browser.newPage();',
    `await page.goto(${literal(exampleTarget)});`,
    'console.log(await page.title());',
    'await browser.close();',
  ].join('\n');
}

/** The four snippets for one set of gateway credentials. */
export function gatewaySnippets(credentials: GatewayCredentials): Snippet[] {
  const url = gatewayUrl(credentials);
  return [
    { tool: 'curl', title: 'curl', language: 'shell', code: curl(url) },
    { tool: 'requests', title: 'Python requests', language: 'python', code: requests(url) },
    { tool: 'scrapy', title: 'Scrapy', language: 'python', code: scrapy(url) },
    { tool: 'playwright', title: 'Playwright (Node.js)', language: 'javascript', code: playwright(credentials) },
  ];
}
