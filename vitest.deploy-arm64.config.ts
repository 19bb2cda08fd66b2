import { defineConfig } from 'vitest/config';

// `npm run test:deploy:arm64`: the arm64 image and device under emulation (qemu-user), a stage of its own:
// every step runs several times slower than natively, so its time is budgeted apart (.ci/run).
export default defineConfig({
  test: {
    include: ['test/deployments/arm64/**/*.test.ts'],
    globalSetup: ['test/deployments/arm64/global-setup.ts'],
    testTimeout: 900_000,
    hookTimeout: 1_800_000,
    fileParallelism: false,
  },
});
