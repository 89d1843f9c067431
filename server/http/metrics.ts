// The process's Prometheus metrics in the text exposition format.
import type { Runtime } from '@/server/runtime';

export async function metricsText(runtime: Runtime): Promise<Response> {
  const { registry } = runtime.metrics;
  // Read from the store now, so every replica answers with the sets as they are.
  await runtime.proxySets.recordMetrics(runtime.metrics.proxySetReplicas);
  return new Response(await registry.metrics(), { headers: { 'content-type': registry.contentType, 'cache-control': 'no-store' } });
}
