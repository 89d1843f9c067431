// Runs in the browser before the app's modules: zod compiles object parsers with `Function` when
// it may, probing for that as each object schema is built (module-level schemas included). The
// pages' CSP forbids eval, so the probe would show up as a CSP violation in every tab. Plain
// (jitless) parsing is fast enough for the dashboard's answers and forms.
import { z } from 'zod';

z.config({ jitless: true });
