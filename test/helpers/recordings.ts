/** The sample recordings of real sensors the repository carries (test/fixtures/recordings/README.md says what each holds). */
import { fileURLToPath } from 'node:url';

export const RECORDINGS = fileURLToPath(new URL('../fixtures/recordings/', import.meta.url));
