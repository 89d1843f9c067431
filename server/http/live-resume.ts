// Where a dashboard page's live stream starts: the feed's head when the page renders. The stream
// then replays the changes since (there are few in the second before it opens) and its `ready`
// says resumed, so the page does not fetch every query a second time to catch up.
import { getRuntime } from '@/server/runtime';

/**
 * The live feed's head on this replica; undefined when another replica leads (it serves the
 * stream, from a feed of its own) or the runtime is not up (the page still renders).
 */
export async function liveResumePoint(): Promise<string | undefined> {
  try {
    const { services } = await getRuntime();
    return services.cluster.isLeader() ? services.live.head() : undefined;
  } catch {
    return undefined;
  }
}
