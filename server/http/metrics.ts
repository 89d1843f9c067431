// The process's Prometheus metrics in the text exposition format.
import type { RouteServices } from '@/server/runtime';

export async function metricsText(services: RouteServices): Promise<Response> {
  const { registry } = services.metrics;
  // Read from the store now, so every replica answers with the sets as they are.
  await services.proxySets.recordMetrics(services.metrics.proxySetReplicas);
  return new Response(await registry.metrics(), { headers: { 'content-type': registry.contentType, 'cache-control': 'no-store' } });
}
