// The runtime's one import path (@/server/runtime): the composition root and the process's instance.
export { createRuntime, type ClusterApi, type ProviderSummary, type ProvidersApi, type Runtime, type RuntimeOptions } from './create-runtime';
export { getRuntime, startRuntimeOnce, stopRuntimeForTests } from './singleton';
