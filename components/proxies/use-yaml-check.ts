'use client';
// The cloud-config YAML check, loaded when a form with cloud-init fields mounts (not in the
// page's first load). Whoever derives something from checkCloudInit (the editor's verdict, a
// form's errors and Save button) calls this, so it renders again once the check has loaded.
import { useSyncExternalStore } from 'react';
import { loadYamlCheck, yamlCheckLoaded } from './cloud-init-check';

function subscribe(onLoaded: () => void): () => void {
  let subscribed = true;
  // A failed load leaves the check saying so; the next mount tries again.
  loadYamlCheck().then(
    () => subscribed && onLoaded(),
    () => undefined,
  );
  return () => {
    subscribed = false;
  };
}

/** Whether the YAML check has loaded; starts loading it. */
export function useYamlCheck(): boolean {
  return useSyncExternalStore(subscribe, yamlCheckLoaded, () => false);
}
