import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

// Projects: unit (fast, no lab), lab (real libvirtd over real sshd, run one file at a time
// because they share the lab's two hypervisors), e2e (real Chromium against the app on the lab),
// security (attacks on the built app, the systemd unit), guest and teardown.
export default defineConfig({
  resolve: { alias: { '@': root } },
  test: {
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node' },
      },
      {
        extends: true,
        test: {
          name: 'lab',
          include: ['test/lab/**/*.test.ts'],
          exclude: ['test/lab/**/teardown*.test.ts'],
          environment: 'node',
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          fileParallelism: false,
          testTimeout: 180_000,
          hookTimeout: 300_000,
        },
      },
      {
        // Attacks against the built app (next build + next start) and the deployment files: no
        // lab needed, but Chromium and a build, so `npm test` runs it after the lab is up.
        extends: true,
        test: {
          name: 'security',
          include: ['test/security/**/*.test.ts'],
          environment: 'node',
          fileParallelism: false,
          testTimeout: 180_000,
          hookTimeout: 600_000,
        },
      },
      {
        // A real guest OS boots under software emulation: minutes per test. `npm run test:guest`.
        extends: true,
        test: {
          name: 'guest',
          include: ['test/guest/**/*.test.ts'],
          environment: 'node',
          fileParallelism: false,
          testTimeout: 1_800_000,
          hookTimeout: 1_800_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'teardown',
          include: ['test/lab/**/teardown*.test.ts'],
          environment: 'node',
          fileParallelism: false,
          testTimeout: 300_000,
        },
      },
    ],
  },
});
