import next from 'eslint-config-next';

const config = [
  ...next,
  { ignores: ['.next/**', 'node_modules/**', '.lab/**', 'data/**', 'next-env.d.ts'] },
  {
    // The browser never imports server code.
    files: ['components/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['@/server/*', '**/server/*'], message: 'components/ runs in the browser: it must not import server/ code.' }] }],
    },
  },
];

export default config;
