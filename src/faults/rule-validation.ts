/**
 * Checks a fault rule the way configuration is checked: every mistake is named (JSON pointer and
 * what is wrong) and nothing is applied unless the whole rule is valid. Defaults are filled in.
 */
import {
  ALERT_IDS,
  type FaultRuleSpec,
  type FieldError,
  HTTP_METHODS,
  isKnownAlertId,
  STORAGE_FAULT_ERRORS,
  UDP_STREAMS,
} from '../model/index.js';
import {
  ACTIONS,
  actionNames,
  COUNTABLE_PLANES,
  HOUR_MS,
  type NumberParam,
  OBJECT_VECTORS,
  type Plane,
} from './fault-action-params.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** What was given, by value where that helps ("got 75", "got true", "got \"x\""), else by kind. */
const describe = (v: unknown) =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'a list'
      : typeof v === 'string'
        ? JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}…` : v)
        : typeof v === 'number' || typeof v === 'boolean'
          ? String(v)
          : typeof v;
const list = (values: readonly string[]) => values.map((v) => JSON.stringify(v)).join(', ');

function checkVector(raw: unknown, spec: (typeof OBJECT_VECTORS)[number], errors: FieldError[]): number[] | undefined {
  const pointer = `/action/${spec.name}`;
  if (raw === undefined && spec.default) return spec.default;
  const ok =
    Array.isArray(raw) &&
    raw.length === 3 &&
    raw.every(
      (v) => typeof v === 'number' && Number.isFinite(v) && v >= spec.min && v <= spec.max && (!spec.positive || v > 0),
    );
  if (!ok) {
    const range = spec.positive ? `> 0 and <= ${spec.max}` : `${spec.min}..${spec.max}`;
    errors.push({ pointer, detail: `must be [x, y, z], three numbers ${range}; got ${describe(raw)}` });
    return undefined;
  }
  return raw as number[];
}

/** Alert ids by catalogue name too ("OVERTEMP_WARNING"), so rules read well. */
function alertIdOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const named = (ALERT_IDS as Record<string, string>)[value];
  if (named) return named;
  const hex = /^0x[0-9a-f]{8}$/i.test(value) ? `0x${value.slice(2).toUpperCase()}` : undefined;
  return hex && isKnownAlertId(hex) ? hex : undefined;
}

function checkKeys(value: Record<string, unknown>, allowed: readonly string[], pointer: string, errors: FieldError[]) {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key))
      errors.push({ pointer: `${pointer}/${key}`, detail: `is not known here; known: ${list(allowed)}` });
  }
}

function checkNumber(raw: unknown, p: NumberParam, pointer: string, errors: FieldError[]): number | undefined {
  if (raw === undefined) {
    if (p.default === undefined) errors.push({ pointer, detail: 'is required' });
    return p.default;
  }
  const ok = typeof raw === 'number' && Number.isFinite(raw) && (!p.integer || Number.isInteger(raw));
  const inRange = ok && (p.exclusiveMin ? raw > p.min : raw >= p.min) && raw <= p.max;
  if (!inRange) {
    const kind = p.integer ? 'an integer' : 'a number';
    const low = p.exclusiveMin ? `> ${p.min}` : `>= ${p.min}`;
    errors.push({ pointer, detail: `must be ${kind} ${low} and <= ${p.max}; got ${describe(raw)}` });
    return undefined;
  }
  return raw as number;
}

function checkSelector(raw: unknown, errors: FieldError[]): Record<string, unknown> | undefined {
  if (!isObject(raw)) {
    errors.push({
      pointer: '/selector',
      detail: `must be an object with "plane" ("udp", "http" or "unit"); got ${describe(raw)}`,
    });
    return undefined;
  }
  const plane = raw.plane;
  switch (plane) {
    case 'udp': {
      checkKeys(raw, ['plane', 'stream'], '/selector', errors);
      const stream = raw.stream ?? 'both';
      if (!(UDP_STREAMS as readonly unknown[]).includes(stream)) {
        errors.push({
          pointer: '/selector/stream',
          detail: `must be one of ${list(UDP_STREAMS)}; got ${describe(stream)}`,
        });
      }
      return { plane, stream };
    }
    case 'http': {
      checkKeys(raw, ['plane', 'path', 'method'], '/selector', errors);
      const path = raw.path ?? '*';
      if (typeof path !== 'string' || !(path.startsWith('/') || path === '*')) {
        errors.push({
          pointer: '/selector/path',
          detail: `must be a request path starting with "/" (\`*\` matches anything); got ${describe(path)}`,
        });
      }
      const method = typeof raw.method === 'string' ? raw.method.toUpperCase() : (raw.method ?? '*');
      if (!(HTTP_METHODS as readonly unknown[]).includes(method)) {
        errors.push({
          pointer: '/selector/method',
          detail: `must be one of ${list(HTTP_METHODS)}; got ${describe(raw.method)}`,
        });
      }
      return { plane, path, method };
    }
    case 'unit':
      checkKeys(raw, ['plane'], '/selector', errors);
      return { plane };
    default:
      errors.push({ pointer: '/selector/plane', detail: `must be "udp", "http" or "unit"; got ${describe(plane)}` });
      return undefined;
  }
}

function checkAction(
  raw: unknown,
  plane: Plane | undefined,
  errors: FieldError[],
): Record<string, unknown> | undefined {
  if (!isObject(raw)) {
    errors.push({ pointer: '/action', detail: `must be an object with "type"; got ${describe(raw)}` });
    return undefined;
  }
  if (!plane) return undefined;
  const params = ACTIONS[plane][String(raw.type)] as NumberParam[] | undefined;
  if (typeof raw.type !== 'string' || !params || !Object.hasOwn(ACTIONS[plane], raw.type)) {
    errors.push({
      pointer: '/action/type',
      detail: `must be one of ${list(actionNames(plane))} for plane "${plane}"; got ${describe(raw.type)}`,
    });
    return undefined;
  }
  const action: Record<string, unknown> = { type: raw.type };
  const extra =
    raw.type === 'alert'
      ? ['id', 'vars']
      : raw.type === 'storage'
        ? ['error']
        : raw.type === 'object'
          ? OBJECT_VECTORS.map((v) => v.name)
          : [];
  checkKeys(raw, ['type', ...extra, ...params.map((p) => p.name)], '/action', errors);
  for (const p of params) action[p.name] = checkNumber(raw[p.name], p, `/action/${p.name}`, errors);
  if (
    plane === 'http' &&
    raw.type === 'status' &&
    action.status !== undefined &&
    action.status !== 500 &&
    action.status !== 503
  ) {
    errors.push({ pointer: '/action/status', detail: `must be 500 or 503; got ${describe(raw.status)}` });
  }
  if (plane === 'unit' && raw.type === 'storage') {
    if (!(STORAGE_FAULT_ERRORS as readonly unknown[]).includes(raw.error))
      errors.push({
        pointer: '/action/error',
        detail: `must be one of ${list(STORAGE_FAULT_ERRORS)}; got ${describe(raw.error)}`,
      });
    action.error = raw.error;
  }
  if (plane === 'unit' && raw.type === 'object')
    for (const spec of OBJECT_VECTORS) action[spec.name] = checkVector(raw[spec.name], spec, errors);
  if (raw.type === 'alert') {
    const id = alertIdOf(raw.id);
    if (!id)
      errors.push({
        pointer: '/action/id',
        detail:
          `must be a catalogue alert id ("0x01000060") or name (${list(Object.keys(ALERT_IDS))}); ` +
          `got ${describe(raw.id)}`,
      });
    action.id = id;
    // Values for the catalogue's msg_verbose placeholders ({temperature_c}, {host}, …).
    const vars = raw.vars ?? {};
    const valid = isObject(vars) && Object.values(vars).every((v) => typeof v === 'string' || typeof v === 'number');
    if (!valid) {
      const detail = `must be an object of strings and numbers; got ${describe(vars)}`;
      errors.push({ pointer: '/action/vars', detail });
    }
    action.vars = vars;
  }
  return action;
}

function checkLifetime(
  raw: unknown,
  plane: Plane | undefined,
  action: Record<string, unknown> | undefined,
  errors: FieldError[],
) {
  const lifetime: Record<string, number> = {};
  if (raw !== undefined && !isObject(raw)) {
    errors.push({
      pointer: '/lifetime',
      detail: `must be an object ({"duration_ms": N}, {"count": N}, or {} until removed); got ${describe(raw)}`,
    });
    return lifetime;
  }
  const given = raw ?? {};
  checkKeys(given, ['duration_ms', 'count'], '/lifetime', errors);
  const duration = checkNumber(
    given.duration_ms,
    { name: 'duration_ms', min: 1, max: 7 * 24 * HOUR_MS, integer: true, default: 0 },
    '/lifetime/duration_ms',
    errors,
  );
  if (duration) lifetime.duration_ms = duration;
  if (given.count !== undefined) {
    if (plane && !COUNTABLE_PLANES.has(plane)) {
      errors.push({
        pointer: '/lifetime/count',
        detail: 'counts packets or requests: only "udp" and "http" rules have one',
      });
    } else if (action?.type === 'pause' || action?.type === 'stop') {
      errors.push({
        pointer: '/lifetime/count',
        detail: `a ${String(action.type)} rule has no count (it withholds everything while it lives)`,
      });
    } else if (action?.type === 'frame_rate') {
      errors.push({
        pointer: '/lifetime/count',
        detail: 'a frame_rate rule has no count (it paces the whole stream while it lives)',
      });
    } else {
      const count = checkNumber(
        given.count,
        { name: 'count', min: 1, max: Number.MAX_SAFE_INTEGER, integer: true },
        '/lifetime/count',
        errors,
      );
      if (count) lifetime.count = count;
    }
  }
  // A pause is a stop with a duration: its `ms` is its lifetime.
  if (action?.type === 'pause' && typeof action.ms === 'number') {
    if (lifetime.duration_ms !== undefined && lifetime.duration_ms !== action.ms) {
      errors.push({ pointer: '/lifetime/duration_ms', detail: 'a pause lasts action.ms; leave the lifetime out' });
    }
    lifetime.duration_ms = action.ms;
  }
  return lifetime;
}

/** The rule with defaults filled in, or every mistake found. */
export function validateFaultRule(
  input: unknown,
): { rule: FaultRuleSpec; errors: [] } | { rule: undefined; errors: FieldError[] } {
  const errors: FieldError[] = [];
  if (!isObject(input)) {
    return {
      rule: undefined,
      errors: [
        {
          pointer: '',
          detail:
            'the rule must be a JSON object with "selector", "action" and optionally "lifetime"; ' +
            `got ${describe(input)}`,
        },
      ],
    };
  }
  checkKeys(input, ['selector', 'action', 'lifetime'], '', errors);
  const selector = checkSelector(input.selector, errors);
  const plane = selector?.plane as Plane | undefined;
  const action = checkAction(input.action, plane, errors);
  const lifetime = checkLifetime(input.lifetime, plane, action, errors);
  if (action?.type === 'frame_rate' && selector?.stream === 'imu') {
    errors.push({ pointer: '/selector/stream', detail: 'frame_rate paces the lidar stream; got "imu"' });
  }
  if (errors.length) return { rule: undefined, errors };
  return { rule: { selector, action, lifetime } as unknown as FaultRuleSpec, errors: [] };
}
