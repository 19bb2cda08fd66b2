import { defineConfig } from 'vitest/config';

// `npm run test:deploy`: the deployments run whole (Docker image, Compose fleet, Debian package under
// systemd). One file at a time: they share one Docker engine and two cores.
export default defineConfig({
  test: {
    include: ['test/deployments/**/*.test.ts'],
    exclude: ['test/deployments/arm64/**'],
    globalSetup: ['test/deployments/global-setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 900_000,
    fileParallelism: false,
  },
});
