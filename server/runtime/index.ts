// The runtime's one import path (@/server/runtime): the composition root and the process's instance.
export { createRuntime, type Runtime, type RuntimeOptions } from './create-runtime';
export type { ClusterApi, ProviderSummary, ProvidersApi, RouteServices } from './services';
export { getRuntime, startRuntimeOnce, stopRuntimeForTests } from './singleton';
