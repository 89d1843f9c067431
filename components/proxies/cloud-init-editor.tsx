'use client';
// The cloud-init text editor: a monospace area with line numbers, checked as it is typed (the
// #cloud-config header, YAML syntax; scripts and other cloud-init formats pass) with the problem
// shown inline on its line. Used by the Proxy create and edit forms and the set's template.
import { useMemo, useRef } from 'react';
import { controlClass } from '@/components/ui/field';
import { checkCloudInit } from './cloud-init-check';
import { useYamlCheck } from './use-yaml-check';

const formatNames: Record<string, string> = {
  none: 'empty',
  'cloud-config': 'cloud-config (YAML)',
  script: 'script',
  include: 'include list',
  boothook: 'boothook',
  mime: 'MIME multi-part',
  jinja: 'jinja template',
  'part-handler': 'part handler',
  upstart: 'upstart job',
};

export interface CloudInitEditorProps {
  id: string;
  value: string;
  onChange: (value: string) => void;
  /** a refusal from the form or the server, shown with the editor's own */
  error?: string;
}

export function CloudInitEditor({ id, value, onChange, error }: CloudInitEditorProps) {
  const yamlCheckLoaded = useYamlCheck();
  // eslint-disable-next-line react-hooks/exhaustive-deps -- checkCloudInit answers a cloud-config once the YAML check has loaded
  const check = useMemo(() => checkCloudInit(value), [value, yamlCheckLoaded]);
  const gutter = useRef<HTMLPreElement>(null);
  const lines = value.split('\n').length;
  const problem = check.ok || 'loading' in check ? undefined : check;
  const shown = error ?? problem?.message;
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium text-slate-900">
        cloud-init user-data
      </label>
      <div className="flex overflow-hidden rounded-md border border-slate-400 focus-within:outline-2 focus-within:outline-blue-600">
        <pre
          ref={gutter}
          aria-hidden="true"
          className="max-h-80 select-none overflow-hidden bg-slate-100 px-2 py-2 text-right font-mono text-xs leading-5 text-slate-500"
        >
          {Array.from({ length: lines }, (_, index) => (
            <span key={index} className={`block ${problem?.line === index + 1 ? 'bg-red-200 text-red-900' : ''}`}>
              {index + 1}
            </span>
          ))}
        </pre>
        <textarea
          id={id}
          rows={Math.min(16, Math.max(8, lines))}
          spellCheck={false}
          wrap="off"
          aria-invalid={shown ? true : undefined}
          aria-describedby={`${id}-check ${id}-hint`}
          className={`${controlClass} max-h-80 rounded-none border-0 font-mono text-xs leading-5 shadow-none focus-visible:outline-none`}
          value={value}
          placeholder={'#cloud-config\npackages:\n  - squid'}
          onScroll={(event) => {
            if (gutter.current) gutter.current.scrollTop = event.currentTarget.scrollTop;
          }}
          onChange={(event) => onChange(event.target.value)}
        />
      </div>
      <p
        id={`${id}-check`}
        role="status"
        data-testid={`${id}-check`}
        className={`text-sm ${shown ? 'text-red-700' : check.ok ? 'text-emerald-800' : 'text-slate-600'}`}
      >
        {shown ?? (check.ok ? `Looks right: ${formatNames[check.format] ?? check.format}.` : 'Checking the YAML…')}
      </p>
      <p id={`${id}-hint`} className="text-xs text-slate-600">
        At most 64 KiB. A cloud-config starts with the line #cloud-config; a script with #!. Loading a file keeps its bytes exactly, line endings included.
      </p>
    </div>
  );
}
