'use client';
// Copies a text to the clipboard and says so.
import { useState } from 'react';
import { Button } from './button';

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      onClick={async () => {
        await navigator.clipboard?.writeText(text);
        setCopied(true);
      }}
    >
      {copied ? 'Copied' : label}
    </Button>
  );
}
