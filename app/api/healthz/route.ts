// Liveness, without authentication and without touching the runtime: the process answers.
import type { Liveness } from '@/lib/api/health';

export const dynamic = 'force-dynamic';

export function GET(): Response {
  return Response.json({ ok: true } satisfies Liveness, { headers: { 'cache-control': 'no-store' } });
}
