// Runs `fn` over `items` with at most `limit` in flight at once, answers in the items' order: the
// reads of a host listing share one multiplexed libvirt connection, so a bounded number in flight
// keeps the pipeline full without queueing hundreds of calls at once.
export async function mapLimited<T, R>(items: readonly T[], options: { limit: number }, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.limit, items.length) }, worker));
  return results;
}
