/** Attribute validation as the SDK does it (core 2.x attributes.ts): keys non-empty strings, values primitives or homogeneous arrays. */
import { diag, type Attributes, type AttributeValue } from '@opentelemetry/api';

const isPrimitiveType = (type: string): boolean => type === 'number' || type === 'boolean' || type === 'string';

function isHomogeneousArray(values: unknown[]): boolean {
  let type: string | undefined;
  for (const element of values) {
    if (element == null) continue;
    const elementType = typeof element;
    if (elementType === type) continue;
    if (type === undefined && isPrimitiveType(elementType)) {
      type = elementType;
      continue;
    }
    return false;
  }
  return true;
}

/** A value the SDK keeps (null and undefined count as valid: they are skipped, not warned about). */
export function isAttributeValue(value: unknown): value is AttributeValue | null | undefined {
  if (value == null) return true;
  if (Array.isArray(value)) return isHomogeneousArray(value);
  return isPrimitiveType(typeof value);
}

/** The valid entries of `attributes` (arrays copied), with a diag warning for each invalid one. */
export function sanitizeAttributes(attributes: unknown): Attributes {
  const out: Attributes = {};
  if (typeof attributes !== 'object' || attributes == null) return out;
  const record = attributes as Record<string, unknown>;
  for (const key in record) {
    if (!Object.prototype.hasOwnProperty.call(record, key)) continue;
    if (key === '') {
      diag.warn(`Invalid attribute key: ${key}`);
      continue;
    }
    const value = record[key];
    if (!isAttributeValue(value)) {
      diag.warn(`Invalid attribute value set for key: ${key}`);
      continue;
    }
    out[key] = Array.isArray(value) ? value.slice() : (value as AttributeValue | undefined);
  }
  return out;
}
