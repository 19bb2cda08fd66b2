/** Reading the repository's deployment files the way Docker and Kubernetes read them. */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

export const ROOT = resolve(import.meta.dirname, '../..');

/** The Dockerfile's HEALTHCHECK command (exec form), the one compose repeats. */
export function dockerfileHealthcheck(): string[] {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const match = /^HEALTHCHECK .*?CMD (\[.*\])\s*$/m.exec(dockerfile);
  if (!match) throw new Error('no exec-form HEALTHCHECK in the Dockerfile');
  return JSON.parse(match[1]) as string[];
}

export interface ContainerSpec {
  command?: string[];
  args?: string[];
  env?: { name: string; value?: string }[];
}

/** The first container of the first object of `kind` in a manifest file under deploy/kubernetes. */
export function manifestContainer(file: string, kind: string): ContainerSpec {
  const docs = parseAllDocuments(readFileSync(join(ROOT, 'deploy/kubernetes', file), 'utf8')).map((d) => d.toJS());
  const object = docs.find((d: { kind: string }) => d.kind === kind);
  if (!object) throw new Error(`no ${kind} in ${file}`);
  return object.spec.template.spec.containers[0] as ContainerSpec;
}
