/**
 * A resource's resolved Properties with typed readers whose errors name the logical id and the
 * property. CloudFormation accepts "60" for 60 and "true" for true, so the readers do too.
 */
import { LocalDeployError } from './errors';

export class Properties {
  constructor(
    private readonly values: Readonly<Record<string, unknown>>,
    /** "<logical id> (<type>)", the start of every message. */
    readonly where: string,
  ) {}

  /** Refuses a property that is neither applied nor ignored with a reason: it would change nothing, silently. */
  expectOnly(applied: readonly string[], ignored: Readonly<Record<string, string>>): void {
    const unknown = Object.keys(this.values).filter((name) => !applied.includes(name) && !(name in ignored));
    if (unknown.length > 0) {
      throw new LocalDeployError(`${this.where}: the local deployment does not handle ${unknown.join(', ')}`);
    }
  }

  has(name: string): boolean {
    return this.values[name] !== undefined;
  }

  raw(name: string): unknown {
    return this.values[name];
  }

  string(name: string): string | undefined {
    const value = this.values[name];
    if (value === undefined || typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    throw this.invalid(name, 'a string');
  }

  requiredString(name: string): string {
    const value = this.string(name);
    if (value === undefined) throw new LocalDeployError(`${this.where}: property ${name} is required`);
    return value;
  }

  number(name: string): number | undefined {
    const value = this.values[name];
    if (value === undefined) return undefined;
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof number !== 'number' || Number.isNaN(number)) throw this.invalid(name, 'a number');
    return number;
  }

  boolean(name: string): boolean | undefined {
    const value = this.values[name];
    if (value === undefined || typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    throw this.invalid(name, 'true or false');
  }

  object(name: string): Record<string, unknown> | undefined {
    const value = this.values[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw this.invalid(name, 'an object');
    return value as Record<string, unknown>;
  }

  list(name: string): unknown[] | undefined {
    const value = this.values[name];
    if (value === undefined || Array.isArray(value)) return value;
    throw this.invalid(name, 'a list');
  }

  /** A JSON property (a policy, a redrive policy) that the API wants as a string. */
  json(name: string): string | undefined {
    const value = this.values[name];
    return value === undefined || typeof value === 'string' ? value : JSON.stringify(value);
  }

  /** The named properties that are set, as the string attribute map SQS and SNS take. */
  attributeMap(names: readonly string[]): Record<string, string> {
    const attributes: Record<string, string> = {};
    for (const name of names) {
      const value = this.json(name);
      if (value !== undefined) attributes[name] = value;
    }
    return attributes;
  }

  /** CloudFormation's `[{ Key, Value }]` tags as a map. */
  tags(name = 'Tags'): Record<string, string> | undefined {
    const tags = this.list(name) as { Key: string; Value: string }[] | undefined;
    return tags && Object.fromEntries(tags.map((tag) => [tag.Key, tag.Value]));
  }

  private invalid(name: string, expected: string): LocalDeployError {
    return new LocalDeployError(
      `${this.where}: property ${name} must be ${expected} (given ${JSON.stringify(this.values[name])})`,
    );
  }
}
