import next from 'eslint-config-next';

const config = [
  ...next,
  { ignores: ['.next/**', 'node_modules/**', '.lab/**', 'data/**', 'next-env.d.ts'] },
  {
    // The browser never imports server code.
    files: ['components/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@/server/*', '**/server/*'], message: 'components/ runs in the browser: it must not import server/ code.' }] },
      ],
    },
  },
  {
    // The HTTP layer and the routes talk to the runtime's services and the provider contract (with
    // its optional capabilities such as host inventory), never to the store or one provider's internals.
    files: ['server/http/**/*.ts', 'app/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@/server/providers/kvm2', '@/server/providers/kvm2/*', '**/providers/kvm2', '**/providers/kvm2/*'],
              message: 'server/http and app/ use the provider contract (server/providers/contract.ts, host-inventory.ts), not kvm2 internals.',
            },
            {
              group: ['@/server/store', '@/server/store/*', '**/server/store', '**/server/store/*'],
              message: 'server/http and app/ call the services (server/runtime/services.ts); a service that reads the store lives in server/control.',
            },
          ],
        },
      ],
    },
  },
];

export default config;
