/** The message of whatever was thrown: an Error's message, anything else as a string. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
