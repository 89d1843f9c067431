// Why the Proxy is (not) Ready: the read-only checklist of server/control/diagnosis.ts, run now.
import { diagnosisSchema } from '@/lib/api/diagnosis';
import { route } from '@/server/http/route';
import { proxyParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const GET = route(
  { access: 'admin', params: proxyParams, response: diagnosisSchema },
  async ({ services, params }) => await services.diagnosis.diagnose(params.name),
);
