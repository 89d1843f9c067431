// Says "something changed" at most once per interval: the first change at once (the page moves as
// soon as a download starts), the changes of a busy interval together at its end, nothing while
// nothing changes. The gateway's traffic changes per chunk moved; the live feed hears it this way.

export interface ChangeThrottle {
  /** a change happened */
  changed(): void;
  /** drops what is pending; later changes send nothing */
  stop(): void;
}

export function changeThrottle(options: { intervalMs: number; send: () => void }): ChangeThrottle {
  let lastSentMs = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const send = () => {
    timer = undefined;
    lastSentMs = Date.now();
    options.send();
  };
  return {
    changed() {
      if (stopped || timer) return;
      const waitMs = lastSentMs + options.intervalMs - Date.now();
      if (waitMs <= 0) send();
      else {
        timer = setTimeout(send, waitMs);
        timer.unref();
      }
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
