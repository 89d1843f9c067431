// The process's Prometheus metrics in the text exposition format.
import type { Runtime } from '@/server/runtime';

export async function metricsText(runtime: Runtime): Promise<Response> {
  const { registry } = runtime.metrics;
  return new Response(await registry.metrics(), { headers: { 'content-type': registry.contentType, 'cache-control': 'no-store' } });
}
