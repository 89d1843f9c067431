// kvm2's onboarding: the wizard's steps over SSH and a throw-away backend for the candidate host
// (kvm2-setup.ts, host-steps.ts), and the edits of kvm2 entries in the providers config.
import type { OnboardingFactory } from '../contract';
import { kvm2ConfigEdits } from './config-edits';
import { Kvm2HostSetup } from './kvm2-setup';

export const kvm2Onboarding: OnboardingFactory = (context) => ({ setup: new Kvm2HostSetup(context), config: kvm2ConfigEdits });
