/**
 * Resolves CloudFormation intrinsic functions against the resources created so far: Ref, Fn::GetAtt,
 * Fn::Join, Fn::Sub, Fn::Select, Fn::Split, Fn::FindInMap, Fn::Base64, Fn::If and the condition
 * functions (Fn::Equals, Fn::Not, Fn::And, Fn::Or). Anything else is an error naming where it
 * stands: a value guessed wrong would deploy a stack that differs silently from the real one.
 */
import { LocalDeployError } from './errors';
import type { CfnTemplate, DeployedResource } from './types';

/** `Ref: AWS::NoValue`: the property or list element is dropped. */
export const NO_VALUE: unique symbol = Symbol('AWS::NoValue');

export interface ResolverScope {
  readonly template: CfnTemplate;
  /** AWS::Region, AWS::AccountId, AWS::Partition, AWS::URLSuffix, AWS::StackName... */
  readonly pseudoParameters: Readonly<Record<string, string>>;
  readonly parameters: Readonly<Record<string, string | readonly string[]>>;
  /** The resources created so far, by logical id; read at resolution time. */
  readonly resources: Readonly<Record<string, DeployedResource>>;
}

export class Resolver {
  private readonly conditionValues = new Map<string, boolean | 'evaluating'>();

  constructor(private readonly scope: ResolverScope) {}

  /** Resolves every intrinsic inside `value`; `where` names the place for error messages. */
  resolve(value: unknown, where: string): unknown {
    if (Array.isArray(value)) {
      return value.map((item) => this.resolve(item, where)).filter((item) => item !== NO_VALUE);
    }
    if (!isObject(value)) return value;
    const keys = Object.keys(value);
    if (keys.length === 1 && (keys[0] === 'Ref' || keys[0].startsWith('Fn::'))) {
      return this.intrinsic(keys[0], value[keys[0]], where);
    }
    const resolved: Record<string, unknown> = {};
    for (const key of keys) {
      const item = this.resolve(value[key], `${where}.${key}`);
      if (item !== NO_VALUE) resolved[key] = item;
    }
    return resolved;
  }

  /** Resolves `value` and insists on a string (numbers and booleans are written as CloudFormation does). */
  resolveString(value: unknown, where: string): string {
    const resolved = this.resolve(value, where);
    if (typeof resolved === 'string') return resolved;
    if (typeof resolved === 'number' || typeof resolved === 'boolean') return String(resolved);
    throw new LocalDeployError(`${where}: expected a string, got ${JSON.stringify(resolved)}`);
  }

  /** Evaluates the named entry of the template's Conditions. */
  condition(name: string, where: string): boolean {
    const known = this.conditionValues.get(name);
    if (known === 'evaluating') throw new LocalDeployError(`${where}: condition ${name} refers to itself`);
    if (known !== undefined) return known;
    const expression = this.scope.template.Conditions?.[name];
    if (expression === undefined) throw new LocalDeployError(`${where}: unknown condition ${name}`);
    this.conditionValues.set(name, 'evaluating');
    const value = this.evaluateCondition(expression, `Conditions.${name}`);
    this.conditionValues.set(name, value);
    return value;
  }

  private evaluateCondition(expression: unknown, where: string): boolean {
    if (isObject(expression) && typeof expression.Condition === 'string') {
      return this.condition(expression.Condition, where);
    }
    const value = this.resolve(expression, where);
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    throw new LocalDeployError(`${where}: a condition must be true or false, got ${JSON.stringify(value)}`);
  }

  private intrinsic(name: string, argument: unknown, where: string): unknown {
    const at = `${where} (${name})`;
    switch (name) {
      case 'Ref':
        return this.ref(expectString(argument, at), at);
      case 'Fn::GetAtt':
        return this.getAtt(argument, at);
      case 'Fn::Join': {
        const [delimiter, items] = expectArray(argument, 2, at);
        return this.resolveList(items, at)
          .map((item) => stringOf(item, at))
          .join(expectString(delimiter, at));
      }
      case 'Fn::Sub':
        return this.sub(argument, at);
      case 'Fn::Select': {
        const [index, items] = expectArray(argument, 2, at);
        const list = this.resolveList(items, at);
        const position = Number(this.resolve(index, at));
        if (!Number.isInteger(position) || position < 0 || position >= list.length) {
          throw new LocalDeployError(`${at}: index ${String(index)} is outside a list of ${list.length}`);
        }
        return list[position];
      }
      case 'Fn::Split': {
        const [delimiter, text] = expectArray(argument, 2, at);
        return this.resolveString(text, at).split(expectString(delimiter, at));
      }
      case 'Fn::FindInMap': {
        const [map, top, second] = expectArray(argument, 3, at).map((key) => this.resolveString(key, at));
        const found = this.scope.template.Mappings?.[map]?.[top]?.[second];
        if (found === undefined) throw new LocalDeployError(`${at}: no mapping ${map}.${top}.${second}`);
        return found;
      }
      case 'Fn::Base64':
        return Buffer.from(this.resolveString(argument, at)).toString('base64');
      case 'Fn::If': {
        const [condition, whenTrue, whenFalse] = expectArray(argument, 3, at);
        return this.resolve(this.condition(expectString(condition, at), at) ? whenTrue : whenFalse, at);
      }
      case 'Fn::Equals': {
        const [left, right] = expectArray(argument, 2, at).map((side) => this.resolve(side, at));
        return JSON.stringify(left) === JSON.stringify(right);
      }
      case 'Fn::Not':
        return !this.evaluateCondition(expectArray(argument, 1, at)[0], at);
      case 'Fn::And':
        return expectConditions(argument, at).every((item) => this.evaluateCondition(item, at));
      case 'Fn::Or':
        return expectConditions(argument, at).some((item) => this.evaluateCondition(item, at));
      default:
        throw new LocalDeployError(`${where}: intrinsic ${name} is not supported by the local deployment`);
    }
  }

  private ref(name: string, where: string): unknown {
    if (name === 'AWS::NoValue') return NO_VALUE;
    if (name.startsWith('AWS::')) {
      const pseudo = this.scope.pseudoParameters[name];
      if (pseudo === undefined)
        throw new LocalDeployError(`${where}: pseudo parameter ${name} has no local value`);
      return pseudo;
    }
    if (name in this.scope.parameters) return this.scope.parameters[name];
    if (this.scope.template.Parameters?.[name]) {
      throw new LocalDeployError(
        `${where}: parameter ${name} is read from SSM on AWS and has no local value`,
      );
    }
    return this.deployed(name, where).attributes.Ref;
  }

  private getAtt(argument: unknown, where: string): string {
    const [logicalId, attribute] =
      typeof argument === 'string'
        ? splitAttributeName(argument, where)
        : expectArray(argument, 2, where).map((part) => this.resolveString(part, where));
    const resource = this.deployed(logicalId, where);
    const value = resource.attributes[attribute];
    if (value === undefined) {
      const known = Object.keys(resource.attributes).filter((key) => key !== 'Ref');
      throw new LocalDeployError(
        `${where}: ${logicalId} (${resource.type}) has no attribute ${attribute} locally (known: ${known.join(', ')})`,
      );
    }
    return value;
  }

  private sub(argument: unknown, where: string): string {
    const [text, variables] =
      typeof argument === 'string' ? [argument, {}] : (expectArray(argument, 2, where) as [unknown, unknown]);
    const locals = this.resolve(variables, where) as Record<string, unknown>;
    // ${!Literal} stands for the text ${Literal}; ${Name} and ${Resource.Attribute} are references.
    return expectString(text, where).replace(/\$\{(!?)([^}]+)\}/g, (_, literal: string, name: string) => {
      if (literal) return `\${${name}}`;
      if (name in locals) return stringOf(locals[name], where);
      if (name.includes('.') && !name.startsWith('AWS::')) return this.getAtt(name, where);
      return stringOf(this.ref(name, where), where);
    });
  }

  private resolveList(value: unknown, where: string): unknown[] {
    const list = this.resolve(value, where);
    if (!Array.isArray(list))
      throw new LocalDeployError(`${where}: expected a list, got ${JSON.stringify(list)}`);
    return list;
  }

  private deployed(logicalId: string, where: string): DeployedResource {
    const resource = this.scope.resources[logicalId];
    if (resource) return resource;
    if (this.scope.template.Resources?.[logicalId]) {
      throw new LocalDeployError(
        `${where}: ${logicalId} is not created (its Condition is false, or it comes later)`,
      );
    }
    throw new LocalDeployError(
      `${where}: ${logicalId} is neither a parameter nor a resource of the template`,
    );
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function expectString(value: unknown, where: string): string {
  if (typeof value !== 'string')
    throw new LocalDeployError(`${where}: expected a string, got ${JSON.stringify(value)}`);
  return value;
}

function expectArray(value: unknown, length: number, where: string): unknown[] {
  if (!Array.isArray(value) || value.length !== length) {
    throw new LocalDeployError(`${where}: expected a list of ${length}, got ${JSON.stringify(value)}`);
  }
  return value;
}

function expectConditions(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value) || value.length < 2 || value.length > 10) {
    throw new LocalDeployError(`${where}: expected 2 to 10 conditions, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** `Resource.Attribute` (the string form of Fn::GetAtt and of a ${} reference in Fn::Sub). */
function splitAttributeName(name: string, where: string): [string, string] {
  const dot = name.indexOf('.');
  if (dot <= 0) throw new LocalDeployError(`${where}: expected Resource.Attribute, got ${name}`);
  return [name.slice(0, dot), name.slice(dot + 1)];
}

function stringOf(value: unknown, where: string): string {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return String(value);
  throw new LocalDeployError(`${where}: expected a string, got ${JSON.stringify(value)}`);
}
