/**
 * The resource of afterstop's own provider, built as resources 2.x builds it (ResourceImpl,
 * detectResources with envDetector, processDetector and hostDetector): same attributes, same order, the
 * machine id read asynchronously (an export waits for it, export/queue.ts).
 */
import { diag, type Attributes, type AttributeValue } from '@opentelemetry/api';
import * as os from 'node:os';
import { machineId } from './machine-id.js';
import type { RawResourceAttribute, Resource } from './sdk-types.js';

type Env = Record<string, string | undefined>;

const isPromiseLike = (value: unknown): value is PromiseLike<unknown> => value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function';

/** A resource: raw attributes, the first of a key wins; promised ones are read once settled. */
export class AttributeResource implements Resource {
  private readonly raw: RawResourceAttribute[];
  private pending: boolean;
  private memoized: Attributes | undefined;

  constructor(
    raw: RawResourceAttribute[],
    readonly schemaUrl?: string,
  ) {
    this.raw = raw.map(([key, value]): RawResourceAttribute => {
      if (!isPromiseLike(value)) return [key, value];
      return [
        key,
        Promise.resolve(value).catch((error: unknown) => {
          diag.debug('promise rejection for resource attribute: %s - %s', key, error);
          return undefined;
        }),
      ];
    });
    this.pending = this.raw.some(([, value]) => isPromiseLike(value));
  }

  get asyncAttributesPending(): boolean {
    return this.pending;
  }

  async waitForAsyncAttributes(): Promise<void> {
    if (!this.pending) return;
    for (let i = 0; i < this.raw.length; i++) {
      const [key, value] = this.raw[i]!;
      this.raw[i] = [key, isPromiseLike(value) ? await value : value];
    }
    this.pending = false;
  }

  get attributes(): Attributes {
    if (this.pending) diag.error('Accessing resource attributes before async attributes settled');
    if (this.memoized) return this.memoized;
    const attributes: Attributes = {};
    for (const [key, value] of this.raw) {
      if (isPromiseLike(value)) {
        diag.debug(`Unsettled resource attribute ${key} skipped`);
        continue;
      }
      if (value != null) attributes[key] ??= value;
    }
    if (!this.pending) this.memoized = attributes;
    return attributes;
  }

  getRawAttributes(): RawResourceAttribute[] {
    return this.raw;
  }

  /** `other`'s attributes first (they win), then these; the schema URL kept when the two agree or one is empty (as ResourceImpl.merge). */
  merge(other: Resource | null): Resource {
    if (other == null) return this;
    const empty = (url: string | undefined): boolean => url === undefined || url === '';
    let schemaUrl: string | undefined;
    if (empty(this.schemaUrl)) schemaUrl = other.schemaUrl;
    else if (empty(other.schemaUrl) || this.schemaUrl === other.schemaUrl) schemaUrl = this.schemaUrl;
    else diag.warn('Schema URL merge conflict: old resource has "%s", updating resource has "%s". Resulting resource will have undefined Schema URL.', this.schemaUrl, other.schemaUrl);
    return new AttributeResource([...other.getRawAttributes(), ...this.raw], schemaUrl);
  }
}

export const resourceFromAttributes = (attributes: Record<string, AttributeValue | undefined>): AttributeResource => new AttributeResource(Object.entries(attributes));

/** OTEL_RESOURCE_ATTRIBUTES (`key=value,…`, percent-decoded, at most 255 characters each) and OTEL_SERVICE_NAME, as envDetector reads them. */
export function envAttributes(env: Env): Attributes {
  const attributes: Attributes = {};
  const blank = (value: string | undefined): boolean => value == null || value.trim() === '';
  const raw = env['OTEL_RESOURCE_ATTRIBUTES'];
  if (!blank(raw)) {
    try {
      const parsed: Attributes = {};
      for (const entry of raw!.split(',').filter((item) => item.trim() !== '')) {
        const pair = entry.split('=');
        if (pair.length !== 2) {
          throw new Error(`Invalid format for OTEL_RESOURCE_ATTRIBUTES: "${entry}". Expected format: key=value. The ',' and '=' characters must be percent-encoded in keys and values.`);
        }
        const key = pair[0]!.trim();
        const value = pair[1]!.trim();
        if (key.length === 0) throw new Error(`Invalid OTEL_RESOURCE_ATTRIBUTES: empty attribute key in "${entry}".`);
        let decodedKey: string;
        let decodedValue: string;
        try {
          decodedKey = decodeURIComponent(key);
          decodedValue = decodeURIComponent(value);
        } catch (error) {
          throw new Error(`Failed to percent-decode OTEL_RESOURCE_ATTRIBUTES entry "${entry}": ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        }
        if (decodedKey.length > 255) throw new Error(`Attribute key exceeds the maximum length of 255 characters: "${decodedKey}".`);
        if (decodedValue.length > 255) throw new Error(`Attribute value exceeds the maximum length of 255 characters for key "${decodedKey}".`);
        parsed[decodedKey] = decodedValue;
      }
      Object.assign(attributes, parsed);
    } catch (error) {
      // As the SDK's envDetector: a malformed variable gives none of its attributes, said at debug level.
      diag.debug(`EnvDetector failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const serviceName = env['OTEL_SERVICE_NAME'];
  if (!blank(serviceName)) attributes['service.name'] = serviceName!;
  return attributes;
}

/** What processDetector finds. */
function processAttributes(): Attributes {
  const attributes: Attributes = {
    'process.pid': process.pid,
    'process.executable.name': process.title,
    'process.executable.path': process.execPath,
    'process.command_args': [process.argv[0]!, ...process.execArgv, ...process.argv.slice(1)],
    'process.runtime.version': process.versions.node,
    'process.runtime.name': 'nodejs',
    'process.runtime.description': 'Node.js',
  };
  if (process.argv.length > 1) attributes['process.command'] = process.argv[1]!;
  try {
    attributes['process.owner'] = os.userInfo().username;
  } catch (error) {
    diag.debug(`error obtaining process owner: ${String(error)}`);
  }
  return attributes;
}

const ARCH: Record<string, string> = { arm: 'arm32', ppc: 'ppc32', x64: 'amd64' };

/** What hostDetector finds (host.id settles later). */
function hostAttributes(): RawResourceAttribute[] {
  return [
    ['host.name', os.hostname()],
    ['host.arch', ARCH[os.arch()] ?? os.arch()],
    ['host.id', machineId()],
  ];
}

/** detectResources({ detectors: [envDetector, processDetector, hostDetector] }): each later detector's attributes first. */
export function detectedResource(env: Env): Resource {
  const detected = [new AttributeResource(Object.entries(envAttributes(env))), new AttributeResource(Object.entries(processAttributes())), new AttributeResource(hostAttributes())];
  return detected.reduce<Resource>((merged, resource) => merged.merge(resource), new AttributeResource([]));
}
