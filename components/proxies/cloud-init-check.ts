// What the cloud-init editor says about user-data before it is sent: cloud-init picks the format by
// the first line, so a cloud-config needs its `#cloud-config` header (without it cloud-init ignores
// the YAML, and the VM boots without the proxy), and its YAML must parse to a mapping. Scripts,
// includes, boothooks, MIME multi-part and jinja templates are passed as they are.
import { isMap, parseDocument } from 'yaml';

export type CloudInitFormat = 'none' | 'cloud-config' | 'script' | 'include' | 'boothook' | 'mime' | 'jinja' | 'part-handler' | 'upstart';

export type CloudInitCheck = { ok: true; format: CloudInitFormat } | { ok: false; line: number; message: string };

// First-line markers cloud-init knows (its "user-data formats"), other than #cloud-config.
const otherFormats: Array<[RegExp, CloudInitFormat]> = [
  [/^#!/, 'script'],
  [/^#include(-once)?\s*$/, 'include'],
  [/^#cloud-boothook\s*$/, 'boothook'],
  [/^#part-handler\s*$/, 'part-handler'],
  [/^#upstart-job\s*$/, 'upstart'],
  [/^content-type:/i, 'mime'],
  [/^##\s*template:\s*jinja\s*$/, 'jinja'],
];

const header = '#cloud-config';

function checkYaml(text: string): CloudInitCheck {
  const document = parseDocument(text);
  const error = document.errors[0];
  if (error) {
    const [line, column] = error.linePos?.[0] ? [error.linePos[0].line, error.linePos[0].col] : [1, 1];
    const reason = error.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '') ?? error.message;
    return { ok: false, line, message: `YAML error on line ${line}, column ${column}: ${reason}` };
  }
  const contents = document.contents;
  if (contents !== null && !isMap(contents)) {
    const line = contents.range ? text.slice(0, contents.range[0]).split('\n').length : 2;
    return {
      ok: false,
      line,
      message: `a cloud-config must be a mapping (keys such as packages:, runcmd:, write_files:) on line ${line}, not a list or a single value`,
    };
  }
  return { ok: true, format: 'cloud-config' };
}

export function checkCloudInit(text: string): CloudInitCheck {
  if (text.trim() === '') return { ok: true, format: 'none' };
  const firstLine = text.split(/\r?\n/, 1)[0] ?? '';
  if (firstLine.trimEnd() === header) return checkYaml(text);
  for (const [pattern, format] of otherFormats) if (pattern.test(firstLine)) return { ok: true, format };
  const looksMisspelt = /^#\s*cloud[-_ ]?conf/i.test(firstLine);
  return {
    ok: false,
    line: 1,
    message: looksMisspelt
      ? `line 1 must be exactly "${header}" (found "${firstLine.trim()}"): cloud-init ignores user-data it does not recognise`
      : `line 1 must be "${header}" for a cloud-config (or "#!" for a script): cloud-init ignores user-data without a header it knows`,
  };
}
