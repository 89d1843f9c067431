import type { Metadata } from 'next';
import { Suspense } from 'react';
import { LoginForm } from '@/components/auth/login-form';
import { SkeletonRows } from '@/components/ui/skeleton';

export const metadata: Metadata = { title: 'Log in' };

export default function LoginPage() {
  return (
    <main className="flex min-h-screen items-center justify-center px-4 py-10">
      <div className="w-full max-w-sm rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <h1 className="text-xl font-semibold text-slate-900">kvm2 proxies</h1>
        <p className="mb-5 mt-1 text-sm text-slate-600">Log in to manage your hosts and Proxies.</p>
        <Suspense fallback={<SkeletonRows rows={2} label="the login form" />}>
          <LoginForm />
        </Suspense>
      </div>
    </main>
  );
}
