'use client';
// Scale a set: − and + (one member at a time) or a number, sent to .../scale at once.
import { useState } from 'react';
import { maxReplicas } from '@/lib/api/proxyset-spec';
import type { ProxySetView } from '@/lib/api/proxysets';
import { Button } from '@/components/ui/button';
import { controlClass } from '@/components/ui/field';
import { useScaleProxySet } from './queries';

export function ScaleControl({ set }: { set: ProxySetView }) {
  const scale = useScaleProxySet(set.name);
  const [typed, setTyped] = useState<string>();
  const to = (replicas: number) => {
    setTyped(undefined);
    scale.mutate(replicas);
  };
  const busy = scale.isPending || set.deletionRequestedAt !== undefined;
  return (
    <div className="space-y-1">
      <div className="flex items-center gap-2" role="group" aria-label="Scale">
        <Button aria-label="One member fewer" disabled={busy || set.replicas === 0} onClick={() => to(set.replicas - 1)}>
          −
        </Button>
        <label htmlFor="set-replicas-input" className="sr-only">
          Replicas
        </label>
        <input
          id="set-replicas-input"
          inputMode="numeric"
          className={`${controlClass.replace('w-full', 'w-20')} text-center`}
          value={typed ?? String(set.replicas)}
          onChange={(event) => setTyped(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && typed !== undefined && /^\d+$/.test(typed)) to(Number(typed));
          }}
          onBlur={() => {
            if (typed !== undefined && /^\d+$/.test(typed) && Number(typed) !== set.replicas) to(Number(typed));
            else setTyped(undefined);
          }}
        />
        <Button aria-label="One member more" disabled={busy || set.replicas >= maxReplicas} onClick={() => to(set.replicas + 1)}>
          +
        </Button>
        <span className="text-sm text-slate-700" data-testid="set-replicas">
          {set.replicas} wanted
        </span>
      </div>
      {scale.error ? (
        <p role="alert" className="text-sm text-red-700">
          {scale.error.message}
        </p>
      ) : null}
    </div>
  );
}
