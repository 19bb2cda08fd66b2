import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The deployments (Docker, Compose, systemd) run in `npm run test:deploy`, with their own set-up.
    exclude: ['test/deployments/**', '**/node_modules/**'],
    // End-to-end tests spawn the built CLI (dist/): built here when a source is newer than it.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: data-plane tests measure packet rates, so don't run too many files at once.
    maxWorkers: 2,
  },
});
