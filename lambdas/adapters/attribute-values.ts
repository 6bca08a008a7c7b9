/**
 * Hand-written DynamoDB attribute-value mapping (no @aws-sdk/util-dynamodb): constructors for the
 * values the adapters write, and readers that check what they read, so that an item we did not
 * write becomes a MalformedItemError instead of an `undefined` deep inside a decision.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type {
  ErrorClass,
  ErrorEvidence,
  ExternalRecord,
  QuarantineIntent,
  QuarantineReason,
} from '../core/types';
import { MalformedItemError } from '../ports/errors';

export type Item = Record<string, AttributeValue>;

export const S = (value: string): AttributeValue => ({ S: value });
export const N = (value: number): AttributeValue => {
  if (!Number.isFinite(value)) throw new RangeError(`DynamoDB numbers must be finite (given ${value})`);
  return { N: String(value) };
};
export const BOOL = (value: boolean): AttributeValue => ({ BOOL: value });
export const M = (value: Item): AttributeValue => ({ M: value });
export const L = (values: readonly AttributeValue[]): AttributeValue => ({ L: [...values] });

/** Attributes whose value is undefined are left out, as the domain's optional fields are. */
export function compact(entries: Readonly<Record<string, AttributeValue | undefined>>): Item {
  const item: Item = {};
  for (const [name, value] of Object.entries(entries)) {
    if (value !== undefined) item[name] = value;
  }
  return item;
}

/** `value` without its undefined properties (whole-object comparisons see no `key: undefined`). */
export function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}

export const optional = <T>(value: T | undefined, to: (value: T) => AttributeValue) =>
  value === undefined ? undefined : to(value);

/** Reads typed attributes of one item; `what` names the item in error messages. */
export class ItemReader {
  constructor(
    private readonly item: Item,
    private readonly what: string,
  ) {}

  string(name: string): string {
    const value = this.item[name]?.S;
    if (value === undefined) throw this.malformed(name, 'a string');
    return value;
  }

  optionalString(name: string): string | undefined {
    return this.item[name] === undefined ? undefined : this.string(name);
  }

  /** A string set, sorted (DynamoDB keeps no order); absent means none. */
  optionalStringSet(name: string): string[] | undefined {
    if (this.item[name] === undefined) return undefined;
    const values = this.item[name].SS;
    if (values === undefined) throw this.malformed(name, 'a string set');
    return [...values].sort();
  }

  number(name: string): number {
    const text = this.item[name]?.N;
    const value = text === undefined ? Number.NaN : Number(text);
    if (!Number.isFinite(value)) throw this.malformed(name, 'a number');
    return value;
  }

  /** A counter written with if_not_exists/ADD; absent means 0. */
  counter(name: string): number {
    return this.item[name] === undefined ? 0 : this.number(name);
  }

  optionalNumber(name: string): number | undefined {
    return this.item[name] === undefined ? undefined : this.number(name);
  }

  boolean(name: string): boolean {
    const value = this.item[name]?.BOOL;
    if (value === undefined) throw this.malformed(name, 'a boolean');
    return value;
  }

  optionalBoolean(name: string): boolean | undefined {
    return this.item[name] === undefined ? undefined : this.boolean(name);
  }

  optionalMap(name: string): ItemReader | undefined {
    if (this.item[name] === undefined) return undefined;
    const value = this.item[name].M;
    if (value === undefined) throw this.malformed(name, 'a map');
    return new ItemReader(value, `${this.what}.${name}`);
  }

  list(name: string): ItemReader[] {
    if (this.item[name] === undefined) return [];
    const values = this.item[name].L;
    if (values === undefined) throw this.malformed(name, 'a list');
    return values.map((value, index) => {
      if (value.M === undefined) throw this.malformed(`${name}[${index}]`, 'a map');
      return new ItemReader(value.M, `${this.what}.${name}[${index}]`);
    });
  }

  private malformed(name: string, expected: string): MalformedItemError {
    return new MalformedItemError(`${this.what}: attribute "${name}" is not ${expected}`);
  }
}

export function externalToAttribute(external: ExternalRecord): AttributeValue {
  return M(
    compact({
      name: S(external.name),
      status: S(external.status),
      idempotencyKey: optional(external.idempotencyKey, S),
      at: S(external.at),
    }),
  );
}

export function externalFromItem(map: ItemReader | undefined): ExternalRecord | undefined {
  if (map === undefined) return undefined;
  const idempotencyKey = map.optionalString('idempotencyKey');
  return {
    name: map.string('name'),
    status: map.string('status') as ExternalRecord['status'],
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    at: map.string('at'),
  };
}

export function evidenceToAttribute(evidence: ErrorEvidence): AttributeValue {
  return M({
    class: S(evidence.class),
    name: S(evidence.name),
    message: S(evidence.message),
    stackHead: S(evidence.stackHead),
  });
}

export function intentToAttribute(intent: QuarantineIntent): AttributeValue {
  return M(
    compact({
      id: S(intent.id),
      reason: S(intent.reason),
      charge: N(intent.charge),
      error: optional(intent.error, evidenceToAttribute),
    }),
  );
}

export function intentFromItem(map: ItemReader | undefined): QuarantineIntent | undefined {
  if (map === undefined) return undefined;
  const error = evidenceFromItem(map.optionalMap('error'));
  return {
    id: map.string('id'),
    reason: map.string('reason') as QuarantineReason,
    charge: map.counter('charge'),
    ...(error === undefined ? {} : { error }),
  };
}

export function evidenceFromItem(map: ItemReader | undefined): ErrorEvidence | undefined {
  if (map === undefined) return undefined;
  return {
    class: map.string('class') as ErrorClass,
    name: map.string('name'),
    message: map.string('message'),
    stackHead: map.string('stackHead'),
  };
}
