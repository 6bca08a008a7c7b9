/**
 * The order resources are created in: every resource after what it references (Ref, Fn::GetAtt,
 * ${...} in Fn::Sub) and what its DependsOn names. A cycle is an error naming it.
 */
import { LocalDeployError } from './errors';
import type { CfnResource } from './types';

export function creationOrder(resources: Readonly<Record<string, CfnResource>>): string[] {
  const dependencies = new Map(
    Object.entries(resources).map(([logicalId, resource]) => [
      logicalId,
      dependenciesOf(logicalId, resource, resources),
    ]),
  );
  const ordered: string[] = [];
  const done = new Set<string>();
  const visiting: string[] = [];

  const visit = (logicalId: string): void => {
    if (done.has(logicalId)) return;
    const cycleStart = visiting.indexOf(logicalId);
    if (cycleStart >= 0) {
      const cycle = [...visiting.slice(cycleStart), logicalId].join(' -> ');
      throw new LocalDeployError(`resources depend on each other in a cycle: ${cycle}`);
    }
    visiting.push(logicalId);
    for (const dependency of dependencies.get(logicalId) ?? []) visit(dependency);
    visiting.pop();
    done.add(logicalId);
    ordered.push(logicalId);
  };
  for (const logicalId of Object.keys(resources)) visit(logicalId);
  return ordered;
}

function dependenciesOf(
  logicalId: string,
  resource: CfnResource,
  resources: Readonly<Record<string, CfnResource>>,
): Set<string> {
  const named = typeof resource.DependsOn === 'string' ? [resource.DependsOn] : (resource.DependsOn ?? []);
  for (const dependency of named) {
    if (!resources[dependency]) {
      throw new LocalDeployError(
        `${logicalId}: DependsOn names ${dependency}, which is not a resource of the template`,
      );
    }
  }
  const referenced = [...referencedNames(resource.Properties)].filter((name) => resources[name]);
  return new Set([...named, ...referenced]);
}

/** Every name a value refers to; parameters and pseudo parameters included (the caller filters). */
function* referencedNames(value: unknown): Generator<string> {
  if (Array.isArray(value)) {
    for (const item of value) yield* referencedNames(item);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const entries = Object.entries(value);
  if (entries.length === 1) {
    const [key, argument] = entries[0];
    if (key === 'Ref' && typeof argument === 'string') return yield argument;
    if (key === 'Fn::GetAtt') {
      const target = typeof argument === 'string' ? argument.split('.')[0] : (argument as unknown[])[0];
      if (typeof target === 'string') yield target;
      return;
    }
    if (key === 'Fn::Sub') {
      const [text, variables] =
        typeof argument === 'string' ? [argument, {}] : (argument as [unknown, object]);
      yield* referencedNames(variables);
      if (typeof text === 'string') yield* subReferences(text, new Set(Object.keys(variables)));
      return;
    }
  }
  for (const [, item] of entries) yield* referencedNames(item);
}

function* subReferences(text: string, variables: ReadonlySet<string>): Generator<string> {
  for (const match of text.matchAll(/\$\{([^!}][^}]*)\}/g)) {
    const name = match[1].split('.')[0];
    if (!variables.has(name)) yield name;
  }
}
