// The one place provider types register their onboarding, as provider-types.ts registers their factories.
import { kvm2Onboarding } from './kvm2/onboarding';
import { OnboardingRegistry } from './registry';

/** A registry holding every built-in type's onboarding; the runtime's default. */
export function builtInOnboarding(): OnboardingRegistry {
  const registry = new OnboardingRegistry();
  registry.register('kvm2', kvm2Onboarding);
  return registry;
}
