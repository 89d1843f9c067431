'use client';
// Probe latency over time for the chart. The API reports only a Proxy's latest probe, so the
// browser keeps what it has seen this session (one point per distinct probe time), per Proxy.
import { useSyncExternalStore } from 'react';

export interface ProbePoint {
  at: number;
  latencyMs: number;
  healthy: boolean;
}

const maxPoints = 500;
const series = new Map<string, ProbePoint[]>();
const listeners = new Set<() => void>();
const empty: ProbePoint[] = [];

export function recordProbe(name: string, probe: { probedAt?: string; latencyMs?: number; healthy: boolean }): void {
  const at = probe.probedAt ? Date.parse(probe.probedAt) : Number.NaN;
  if (!Number.isFinite(at) || probe.latencyMs === undefined) return;
  const points = series.get(name) ?? [];
  if (points.some((point) => point.at === at)) return;
  const next = [...points, { at, latencyMs: probe.latencyMs, healthy: probe.healthy }].sort((a, b) => a.at - b.at).slice(-maxPoints);
  series.set(name, next);
  for (const listener of listeners) listener();
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

export function useProbeHistory(name: string): ProbePoint[] {
  return useSyncExternalStore(
    subscribe,
    () => series.get(name) ?? empty,
    () => empty,
  );
}
