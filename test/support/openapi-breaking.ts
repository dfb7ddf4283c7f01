/**
 * The changes to an OpenAPI document that break a client written against the old one (README, Tests): what
 * the client sends must still be accepted, what it reads must still be there with the same type, and the
 * names a generated client uses must stay. Additions (a path, an optional parameter or body field, a
 * response field, a value a request may send) are not breaks.
 */

type Schema = Record<string, unknown>;
type Document = { paths: Record<string, Record<string, Schema>>; components?: { schemas?: Record<string, Schema> } };

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** A schema seen through its nullability: `anyOf: [X, {type: null}]` and `type: [T, 'null']` are X or T, nullable. */
interface Shape {
  schema: Schema;
  types?: Set<string>;
  nullable: boolean;
}

function shapeOf(schema: Schema, document: Document): Shape {
  const ref = schema.$ref as string | undefined;
  if (ref?.startsWith('#/components/schemas/')) return shapeOf(document.components?.schemas?.[ref.slice(21)] ?? {}, document);
  const anyOf = schema.anyOf as Schema[] | undefined;
  if (anyOf?.length === 2 && anyOf.some((s) => s.type === 'null')) {
    return { ...shapeOf(anyOf.find((s) => s.type !== 'null')!, document), nullable: true };
  }
  const type = schema.type as string | string[] | undefined;
  const types = type === undefined ? undefined : new Set(Array.isArray(type) ? type : [type]);
  const nullable = types?.delete('null') ?? false;
  return { schema, types, nullable: nullable || (Array.isArray(schema.enum) && schema.enum.includes(null)) };
}

const valuesOf = (schema: Schema): unknown[] | undefined =>
  'const' in schema ? [schema.const] : Array.isArray(schema.enum) ? schema.enum.filter((v) => v !== null) : undefined;

const accepts = (types: Set<string>, type: string) => types.has(type) || (type === 'integer' && types.has('number'));

/**
 * Compares one schema. `request`: the new one must accept every value the old one did (a client sends them).
 * `response`: the new one must give only values the old one described (a client reads them).
 */
function compareSchema(
  before: Schema,
  after: Schema,
  direction: 'request' | 'response',
  at: string,
  docs: [Document, Document],
  out: string[],
) {
  const old = shapeOf(before, docs[0]);
  const now = shapeOf(after, docs[1]);
  if (direction === 'request' && old.nullable && !now.nullable) out.push(`${at}: no longer accepts null`);
  if (direction === 'response' && now.nullable && !old.nullable) out.push(`${at}: may now be null`);
  if (old.types && now.types) {
    const [wider, narrower] = direction === 'request' ? [now.types, old.types] : [old.types, now.types];
    const lost = [...narrower].filter((t) => !accepts(wider, t));
    if (lost.length > 0) out.push(`${at}: type ${[...old.types].join('|')} became ${[...now.types].join('|')}`);
  }
  const oldValues = valuesOf(old.schema);
  const newValues = valuesOf(now.schema);
  if (direction === 'request' && oldValues && newValues) {
    const dropped = oldValues.filter((v) => !newValues.includes(v));
    if (dropped.length > 0) out.push(`${at}: no longer accepts ${dropped.join(', ')}`);
  }
  if (direction === 'request' && !oldValues && newValues) out.push(`${at}: now limited to ${newValues.join(', ')}`);
  if (direction === 'request') compareLimits(old.schema, now.schema, at, out);
  for (const keyword of ['oneOf', 'allOf'] as const) {
    if (JSON.stringify(old.schema[keyword]) !== JSON.stringify(now.schema[keyword])) out.push(`${at}: ${keyword} changed`);
  }

  const oldProps = (old.schema.properties ?? {}) as Record<string, Schema>;
  const newProps = (now.schema.properties ?? {}) as Record<string, Schema>;
  const oldRequired = new Set((old.schema.required ?? []) as string[]);
  const newRequired = new Set((now.schema.required ?? []) as string[]);
  if (direction === 'request') {
    for (const name of newRequired) if (!oldRequired.has(name)) out.push(`${at}.${name}: now required`);
    for (const name of Object.keys(oldProps)) if (!(name in newProps)) out.push(`${at}.${name}: no longer accepted`);
  } else {
    for (const name of oldRequired) if (!newRequired.has(name)) out.push(`${at}.${name}: no longer always present`);
  }
  for (const [name, schema] of Object.entries(oldProps)) {
    if (newProps[name]) compareSchema(schema, newProps[name], direction, `${at}.${name}`, docs, out);
  }
  if (old.schema.items && now.schema.items) {
    compareSchema(old.schema.items as Schema, now.schema.items as Schema, direction, `${at}[]`, docs, out);
  }
}

/** A request's bounds may widen, never narrow. */
function compareLimits(before: Schema, after: Schema, at: string, out: string[]) {
  if (after.pattern !== undefined && after.pattern !== before.pattern) out.push(`${at}: pattern changed to ${after.pattern}`);
  for (const key of ['maxLength', 'maximum', 'maxItems'] as const) {
    const [was, is] = [before[key] as number | undefined, after[key] as number | undefined];
    if (is !== undefined && (was === undefined || is < was)) out.push(`${at}: ${key} lowered to ${is}`);
  }
  for (const key of ['minLength', 'minimum', 'minItems'] as const) {
    const [was, is] = [before[key] as number | undefined, after[key] as number | undefined];
    if (is !== undefined && (was === undefined || is > was)) out.push(`${at}: ${key} raised to ${is}`);
  }
}

type Parameter = { name: string; in: string; required?: boolean; schema?: Schema };

/** Security a client without a key can meet: none stated, an empty list, or an empty alternative. */
const openToAll = (security: unknown) =>
  !Array.isArray(security) || security.length === 0 || security.some((s) => Object.keys(s).length === 0);

function compareOperation(before: Schema, after: Schema, at: string, docs: [Document, Document], out: string[]) {
  if (before.operationId !== after.operationId) out.push(`${at}: operationId ${before.operationId} became ${after.operationId}`);
  if (openToAll(before.security) && !openToAll(after.security)) out.push(`${at}: now needs a key`);

  const key = (p: Parameter) => `${p.in} ${p.name}`;
  const oldParams = new Map(((before.parameters ?? []) as Parameter[]).map((p) => [key(p), p]));
  for (const param of (after.parameters ?? []) as Parameter[]) {
    const old = oldParams.get(key(param));
    if (!old && param.required) out.push(`${at} ${key(param)}: a new required parameter`);
    if (old && param.required && !old.required) out.push(`${at} ${key(param)}: now required`);
    if (old?.schema && param.schema) compareSchema(old.schema, param.schema, 'request', `${at} ${key(param)}`, docs, out);
  }
  const newParams = new Set(((after.parameters ?? []) as Parameter[]).map(key));
  for (const name of oldParams.keys()) if (!newParams.has(name)) out.push(`${at} ${name}: removed`);

  const oldBody = before.requestBody as { required?: boolean; content?: Record<string, { schema?: Schema }> } | undefined;
  const newBody = after.requestBody as typeof oldBody;
  if (newBody?.required && !oldBody?.required) out.push(`${at}: a body is now required`);
  for (const [type, media] of Object.entries(oldBody?.content ?? {})) {
    const now = newBody?.content?.[type];
    if (!now) out.push(`${at}: no longer takes a ${type} body`);
    else if (media.schema && now.schema) compareSchema(media.schema, now.schema, 'request', `${at} body`, docs, out);
  }

  const oldResponses = (before.responses ?? {}) as Record<string, { content?: Record<string, { schema?: Schema }> }>;
  const newResponses = (after.responses ?? {}) as typeof oldResponses;
  for (const [status, response] of Object.entries(oldResponses)) {
    const now = newResponses[status];
    // A success the client handled must stay; an error it may meet can be retired.
    if (!now) {
      if (status.startsWith('2')) out.push(`${at} ${status}: removed`);
      continue;
    }
    for (const [type, media] of Object.entries(response.content ?? {})) {
      const nowMedia = now.content?.[type];
      if (!nowMedia) out.push(`${at} ${status}: no longer answers ${type}`);
      else if (media.schema && nowMedia.schema) compareSchema(media.schema, nowMedia.schema, 'response', `${at} ${status}`, docs, out);
    }
  }
}

/** Every break from `before` to `after`, one line each; empty when a client of `before` still works. */
export function breakingChanges(before: Document, after: Document): string[] {
  const out: string[] = [];
  for (const [path, item] of Object.entries(before.paths)) {
    for (const method of METHODS) {
      const old = item[method];
      if (!old) continue;
      const now = after.paths[path]?.[method];
      const at = `${method.toUpperCase()} ${path}`;
      if (!now) out.push(`${at}: removed`);
      else compareOperation(old, now, at, [before, after], out);
    }
  }
  return out;
}

const PROSE = new Set(['description', 'summary', 'example', 'examples']);

/**
 * The document without its prose and examples, which no client's code relies on: the baseline this is
 * compared with (test/baselines/openapi.json) changes only when an interface does.
 */
export function clientContract(document: Record<string, unknown>): Document {
  const strip = (value: unknown, isPropertyMap: boolean): unknown => {
    if (Array.isArray(value)) return value.map((v) => strip(v, false));
    if (!value || typeof value !== 'object') return value;
    const entries = Object.entries(value).filter(([key]) => isPropertyMap || !PROSE.has(key));
    return Object.fromEntries(entries.map(([key, v]) => [key, strip(v, !isPropertyMap && key === 'properties')]));
  };
  const { paths, components } = document;
  return strip({ paths, components }, false) as Document;
}
