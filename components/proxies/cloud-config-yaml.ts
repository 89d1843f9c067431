// A #cloud-config's YAML check: it must parse, and to a mapping. Its own module because the yaml
// package is about 31 KB gzipped and only pasted cloud-init needs it: cloud-init-check.ts loads it
// when the editor first shows, so the forms' first load goes without it.
import { isMap, parseDocument } from 'yaml';
import type { CloudInitCheck } from './cloud-init-check';

export function checkCloudConfigYaml(text: string): CloudInitCheck {
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
