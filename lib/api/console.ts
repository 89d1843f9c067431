// A Proxy's serial console over HTTP. GET /api/proxies/{name}/console is a Server-Sent Events
// stream: first `snapshot` (the buffered output so far; a page clears its terminal and writes it)
// and `status`, then `output` and `status` as they happen. Output travels base64-encoded (a
// console prints any bytes). Keystrokes go by POST .../console/input; POST .../console/takeover
// takes the console from whoever holds it (an admin's `virsh console`), disconnecting them.
import { z } from 'zod';

export const consoleStates = ['opening', 'live', 'busy', 'closed'] as const;

/** `message` says why the console is busy or closed. */
export const consoleStatusSchema = z.strictObject({
  state: z.enum(consoleStates),
  message: z.string().optional(),
});
export type ConsoleStatusView = z.infer<typeof consoleStatusSchema>;

export const consoleChunkSchema = z.strictObject({ data: z.base64() });

/** The stream's events by name, each with the schema of its `data` line (JSON). */
export const consoleEventSchemas = {
  snapshot: consoleChunkSchema,
  output: consoleChunkSchema,
  status: consoleStatusSchema,
} as const;
export type ConsoleEventName = keyof typeof consoleEventSchemas;

/** At most this many characters of keystrokes per request (a paste is split by the page). */
export const consoleInputMaxChars = 4096;

export const consoleInputSchema = z.strictObject({
  /** keystrokes as the terminal produced them; sent to the guest as UTF-8 */
  data: z.string().min(1, 'must not be empty').max(consoleInputMaxChars, `at most ${consoleInputMaxChars} characters per request`),
});
export type ConsoleInput = z.infer<typeof consoleInputSchema>;

export const consoleInputResultSchema = z.strictObject({ sentBytes: z.number().int().positive() });
export type ConsoleInputResult = z.infer<typeof consoleInputResultSchema>;

/** What takeover answers: the console's status after it (live, or closed with the reason). */
export const consoleTakeoverSchema = consoleStatusSchema;

/** One event of the stream, as parseEventStream gives it. */
export const consoleEventSchema = z.discriminatedUnion('event', [
  z.strictObject({ event: z.literal('snapshot'), data: consoleChunkSchema }),
  z.strictObject({ event: z.literal('output'), data: consoleChunkSchema }),
  z.strictObject({ event: z.literal('status'), data: consoleStatusSchema }),
]);
export type ConsoleEvent = z.infer<typeof consoleEventSchema>;
