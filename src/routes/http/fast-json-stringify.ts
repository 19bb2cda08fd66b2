/**
 * fast-json-stringify, the response serializer compiler, required on the first compile: every compile
 * here already waits for a route's first use (installed-package.ts says why the package does too).
 */
import type fastJson from 'fast-json-stringify';
import { installedPackage } from '../../first-use/index.js';

export const fastJsonStringify = installedPackage<typeof fastJson>('fast-json-stringify');
