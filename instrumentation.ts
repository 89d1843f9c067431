// Next.js calls register() once per server process; the runtime (control loops) is wired in here
// once it exists. Only the Node.js runtime may load server/ code.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
}
