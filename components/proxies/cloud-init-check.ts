// What the cloud-init editor says about user-data before it is sent: cloud-init picks the format by
// the first line, so a cloud-config needs its `#cloud-config` header (without it cloud-init ignores
// the YAML, and the VM boots without the proxy), and its YAML must parse to a mapping. Scripts,
// includes, boothooks, MIME multi-part and jinja templates are passed as they are. The YAML check
// (cloud-config-yaml.ts) loads on first use: until it has, a cloud-config's check says so.
export type CloudInitFormat = 'none' | 'cloud-config' | 'script' | 'include' | 'boothook' | 'mime' | 'jinja' | 'part-handler' | 'upstart';

export type CloudInitCheck =
  | { ok: true; format: CloudInitFormat }
  | { ok: false; line: number; message: string }
  /** a cloud-config, before the YAML check has loaded (loadYamlCheck) */
  | { ok: false; loading: true; message: string };

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

let checkYaml: ((text: string) => CloudInitCheck) | undefined;
let yamlCheckLoad: Promise<void> | undefined;

/** Loads the YAML check once (again after a failed load); resolves when checkCloudInit can answer for a cloud-config. */
export function loadYamlCheck(): Promise<void> {
  yamlCheckLoad ??= import('./cloud-config-yaml').then(
    (module) => {
      checkYaml = module.checkCloudConfigYaml;
    },
    (err: unknown) => {
      yamlCheckLoad = undefined;
      throw err;
    },
  );
  return yamlCheckLoad;
}

export const yamlCheckLoaded = (): boolean => checkYaml !== undefined;

export function checkCloudInit(text: string): CloudInitCheck {
  if (text.trim() === '') return { ok: true, format: 'none' };
  const firstLine = text.split(/\r?\n/, 1)[0] ?? '';
  if (firstLine.trimEnd() === header) {
    return checkYaml
      ? checkYaml(text)
      : { ok: false, loading: true, message: 'the YAML check has not loaded yet: try again in a moment (reload the page if this stays)' };
  }
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
