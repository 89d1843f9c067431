// Evicts a cached base image on the leader: marker first, then the base; 409 while in use or busy, 503 on another replica.
import { evictOutcomeSchema } from '@/lib/api/providers';
import { route } from '@/server/http/route';
import { imageParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const DELETE = route({ access: 'admin', params: imageParams, response: evictOutcomeSchema }, ({ services, params }) =>
  services.hosts.evictImage(params),
);
