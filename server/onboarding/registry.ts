// Provider type → its onboarding, beside the provider factories (server/providers/registry.ts): a type
// registered here can have hosts added, edited and removed from the dashboard (the `setup`
// capability); entries of other types are edited by hand. Built-in types: onboarding-types.ts.
import type { OnboardingContext, OnboardingFactory, ProviderOnboarding } from './contract';

export class OnboardingRegistry {
  private readonly factories = new Map<string, OnboardingFactory>();

  register(type: string, factory: OnboardingFactory): void {
    this.factories.set(type, factory);
  }

  has(type: string): boolean {
    return this.factories.has(type);
  }

  /** Each registered type's onboarding, in registration order (the first is what a new entry gets). */
  build(context: OnboardingContext): Map<string, ProviderOnboarding> {
    return new Map([...this.factories].map(([type, factory]) => [type, factory(context)]));
  }
}
