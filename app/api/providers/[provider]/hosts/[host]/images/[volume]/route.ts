// Evicts a cached base image: marker first, then the base; 409 while a domain backs onto it.
import { evictImage } from '@/server/http/hosts-api';
import { route } from '@/server/http/route';
import { imageParams } from '@/server/http/schemas';

export const dynamic = 'force-dynamic';

export const DELETE = route({ access: 'admin', params: imageParams }, ({ runtime, params }) => evictImage(runtime, params));
