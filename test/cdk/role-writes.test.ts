/**
 * Issue 22, defect 5: every write each role of the pipeline may make on each table, read from
 * the synthesized template as data (role, table, action, the partition keys and attributes its
 * conditions allow), against the table the design grants (docs/design.md, "Who may write what").
 * What only operators and the pause machine decide (an episode's answer, the stops lifted, the
 * replay freeze) is in the `operator` partition, which the consumer cannot write; the consumer
 * cannot put the open-record counter, nor update a record or more of the counter than its count.
 *
 * What IAM still allows the consumer, because it cannot do better (the rows below say so too):
 * - PutItem of any record whose id starts `q-`: IAM cannot make a PutItem create-only, so the
 *   writer's `attribute_not_exists(id)` is the code's promise, and a replaced record may carry
 *   any status, cause or audit;
 * - the counter's `openRecords` set to any number: IAM cannot tell an ADD from a SET;
 * - any write on its own partitions (the breaker, isolation, failure, crash, lost-completion
 *   and stop items): it may clear `stop` or start an epoch, which is why a stop is decided by the
 *   stop requests, which it may add or overwrite but never delete (it holds no DeleteItem).
 */

import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import { CONSUMER_PARTITIONS, OPERATOR_PARTITION } from '../../contract/control';
import { OPEN_RECORDS_COUNTER, QUARANTINE_RECORD_ID_PREFIX } from '../../contract/quarantine';
import { pipelineStack } from './synth';

/** One write a role may make: on which table, and what its conditions leave it ('any': none). */
interface RoleWrite {
  readonly role: string;
  readonly table: string;
  readonly action: string;
  readonly partitions: string;
  readonly attributes: string;
}

const WRITE_ACTIONS = ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'];
/** Logical id prefixes of the roles and tables of the pipeline (and the test's operator). */
const ROLES: Record<string, string> = {
  PipelineConsumerRole: 'consumer',
  PipelinePauseRole: 'pause machine',
  PipelineVerificationRole: 'verification machine',
  Operator: 'operator',
};
const TABLES: Record<string, string> = {
  PipelineStateAttempts: 'attempts',
  PipelineStateControl: 'control',
  PipelineQuarantineRecords: 'quarantine',
};

interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: Record<string, Record<string, string | string[]>>;
}

const named = (names: Record<string, string>, logicalId: string) =>
  Object.entries(names).find(([prefix]) => logicalId.startsWith(prefix))?.[1] ?? logicalId;

/** `StringEquals: a, b` for what a condition key allows, or 'any' without one. */
function allowed(condition: Statement['Condition'], key: string): string {
  const found = Object.entries(condition ?? {}).find(([, keys]) => keys[key] !== undefined);
  if (found === undefined) return 'any';
  const [operator, keys] = found;
  return `${operator}: ${[keys[key]].flat().sort().join(', ')}`;
}

/** The table a resource names; undefined for an index (indexes take no writes) or anything else. */
function tableOf(resource: unknown): string | undefined {
  const logicalId = (resource as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt']?.[0];
  return logicalId === undefined ? undefined : named(TABLES, logicalId);
}

/** Every DynamoDB write of every role, one row per role, table and action, sorted. */
function roleWrites(template: Template): RoleWrite[] {
  const rows: RoleWrite[] = [];
  for (const policy of Object.values(template.findResources('AWS::IAM::Policy'))) {
    const roles = (policy.Properties.Roles as { Ref: string }[]).map((role) => named(ROLES, role.Ref));
    for (const statement of policy.Properties.PolicyDocument.Statement as Statement[]) {
      if (statement.Effect !== 'Allow') continue;
      const actions = [statement.Action]
        .flat()
        .map((action) =>
          WRITE_ACTIONS.find((write) => `dynamodb:${write}`.toLowerCase() === action.toLowerCase()),
        )
        .filter((action) => action !== undefined);
      const tables = [statement.Resource]
        .flat()
        .map(tableOf)
        .filter((table) => table !== undefined);
      for (const role of roles)
        for (const table of tables)
          for (const action of actions)
            rows.push({
              role,
              table,
              action,
              partitions: allowed(statement.Condition, 'dynamodb:LeadingKeys'),
              attributes: allowed(statement.Condition, 'dynamodb:Attributes'),
            });
    }
  }
  const order = (row: RoleWrite) => `${row.role}|${row.table}|${row.action}|${row.partitions}`;
  return rows.sort((a, b) => order(a).localeCompare(order(b)));
}

const ANY = { partitions: 'any', attributes: 'any' };
const CONSUMER_CONTROL = {
  partitions: `ForAllValues:StringEquals: ${Object.values(CONSUMER_PARTITIONS).sort().join(', ')}`,
  attributes: 'any',
};
const C = OPEN_RECORDS_COUNTER;

/** What the design grants (docs/design.md, "Who may write what"). */
const EXPECTED: RoleWrite[] = [
  { role: 'consumer', table: 'attempts', action: 'UpdateItem', ...ANY },
  { role: 'consumer', table: 'control', action: 'PutItem', ...CONSUMER_CONTROL },
  { role: 'consumer', table: 'control', action: 'UpdateItem', ...CONSUMER_CONTROL },
  // Records: created under their own ids only; IAM cannot refuse a put over an existing one.
  {
    role: 'consumer',
    table: 'quarantine',
    action: 'PutItem',
    partitions: `ForAllValues:StringLike: ${QUARANTINE_RECORD_ID_PREFIX}*`,
    attributes: 'any',
  },
  // The counter: its count only (any value: IAM cannot tell an ADD from a SET).
  {
    role: 'consumer',
    table: 'quarantine',
    action: 'UpdateItem',
    partitions: `ForAllValues:StringEquals: ${C.key.id}`,
    attributes: `ForAllValues:StringEquals: id, ${C.attributes.count}`,
  },
  { role: 'operator', table: 'attempts', action: 'UpdateItem', ...ANY },
  { role: 'operator', table: 'control', action: 'UpdateItem', ...ANY },
  { role: 'operator', table: 'quarantine', action: 'UpdateItem', ...ANY },
  { role: 'pause machine', table: 'control', action: 'UpdateItem', ...ANY },
  { role: 'verification machine', table: 'attempts', action: 'UpdateItem', ...ANY },
  { role: 'verification machine', table: 'quarantine', action: 'UpdateItem', ...ANY },
];

function synthesizedWrites(): RoleWrite[] {
  const { stack, pipeline } = pipelineStack();
  pipeline.grantOperator(new iam.Role(stack, 'Operator', { assumedBy: new iam.AccountRootPrincipal() }));
  return roleWrites(Template.fromStack(stack));
}

describe('defect 5: who may write what', () => {
  const writes = synthesizedWrites();
  const consumer = (table: string) => writes.filter((row) => row.role === 'consumer' && row.table === table);

  it('every role writes exactly what the design grants, on each table and key', () => {
    expect(writes).toStrictEqual(EXPECTED);
  });

  it('the consumer cannot write the operator partition: every control-table write of its names its own partitions', () => {
    for (const row of consumer('control')) {
      expect(row.partitions).toMatch(/^ForAllValues:StringEquals: /);
      expect(row.partitions.split(': ')[1]?.split(', ')).not.toContain(OPERATOR_PARTITION);
    }
  });

  it('the consumer cannot put the open-record counter, nor update a record or more of the counter than its count', () => {
    const rows = consumer('quarantine');
    expect(rows.filter((row) => row.partitions === 'any')).toStrictEqual([]);
    const puts = rows.filter((row) => row.action === 'PutItem');
    expect(puts.map((row) => row.partitions)).toStrictEqual([
      `ForAllValues:StringLike: ${QUARANTINE_RECORD_ID_PREFIX}*`,
    ]);
    expect(C.key.id.startsWith(QUARANTINE_RECORD_ID_PREFIX)).toBe(false);
    const updates = rows.filter((row) => row.action === 'UpdateItem');
    expect(updates).toStrictEqual([EXPECTED[4]]);
  });
});
