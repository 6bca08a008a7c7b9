/**
 * The template side of the local deployment, without moto: intrinsic resolution, creation order
 * and generated names.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Fn::Sub text is CloudFormation's ${} syntax, not a template literal.
import { describe, expect, it } from 'vitest';
import { Resolver } from '../../tools/local-aws/deploy/intrinsics';
import { physicalName } from '../../tools/local-aws/deploy/names';
import { creationOrder } from '../../tools/local-aws/deploy/order';
import type { CfnTemplate, DeployedResource } from '../../tools/local-aws/deploy/types';

const QUEUE_ARN = 'arn:aws:sqs:us-east-1:123456789012:local-Queue';
const QUEUE_URL = 'http://127.0.0.1:5000/123456789012/local-Queue';

function resolverFor(template: CfnTemplate, resources: Record<string, DeployedResource> = {}) {
  return new Resolver({
    template,
    pseudoParameters: {
      'AWS::Region': 'us-east-1',
      'AWS::AccountId': '123456789012',
      'AWS::Partition': 'aws',
    },
    parameters: { Stage: 'test', Zones: ['a', 'b'] },
    resources: {
      Queue: {
        type: 'AWS::SQS::Queue',
        physicalId: QUEUE_URL,
        attributes: { Ref: QUEUE_URL, Arn: QUEUE_ARN },
      },
      ...resources,
    },
  });
}

describe('Resolver', () => {
  const resolver = resolverFor({
    Parameters: { Ssm: { Type: 'AWS::SSM::Parameter::Value<String>', Default: '/cdk-bootstrap/version' } },
    Conditions: {
      IsTest: { 'Fn::Equals': [{ Ref: 'Stage' }, 'test'] },
      IsProd: { 'Fn::Not': [{ Condition: 'IsTest' }] },
      TestInUsEast1: {
        'Fn::And': [{ Condition: 'IsTest' }, { 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'us-east-1'] }],
      },
      AnyOf: { 'Fn::Or': [{ Condition: 'IsProd' }, { Condition: 'TestInUsEast1' }] },
    },
  });

  it('resolves Ref to resources, parameters and pseudo parameters, and Fn::GetAtt in both forms', () => {
    expect(
      resolver.resolve(
        {
          url: { Ref: 'Queue' },
          stage: { Ref: 'Stage' },
          zones: { Ref: 'Zones' },
          region: { Ref: 'AWS::Region' },
          arn: { 'Fn::GetAtt': ['Queue', 'Arn'] },
          sameArn: { 'Fn::GetAtt': 'Queue.Arn' },
        },
        'Test',
      ),
    ).toEqual({
      url: QUEUE_URL,
      stage: 'test',
      zones: ['a', 'b'],
      region: 'us-east-1',
      arn: QUEUE_ARN,
      sameArn: QUEUE_ARN,
    });
  });

  it('resolves Fn::Join, Fn::Select and Fn::Split as CDK nests them', () => {
    const queueName = { 'Fn::Select': [5, { 'Fn::Split': [':', { 'Fn::GetAtt': ['Queue', 'Arn'] }] }] };
    expect(resolver.resolve({ 'Fn::Join': ['/', ['queues', queueName]] }, 'Test')).toBe('queues/local-Queue');
  });

  it('resolves both forms of Fn::Sub, with ${!Literal} left as text', () => {
    expect(resolver.resolve({ 'Fn::Sub': '${AWS::Partition}:${Queue}:${Queue.Arn}:${!Keep}' }, 'Test')).toBe(
      `aws:${QUEUE_URL}:${QUEUE_ARN}:\${Keep}`,
    );
    expect(resolver.resolve({ 'Fn::Sub': ['${Name}-${Stage}', { Name: { Ref: 'Queue' } }] }, 'Test')).toBe(
      `${QUEUE_URL}-test`,
    );
  });

  it('evaluates conditions and drops AWS::NoValue from objects and lists', () => {
    expect([resolver.condition('IsTest', 'Test'), resolver.condition('IsProd', 'Test')]).toEqual([
      true,
      false,
    ]);
    expect(resolver.condition('AnyOf', 'Test')).toBe(true);
    expect(
      resolver.resolve(
        {
          kept: { 'Fn::If': ['IsTest', 'yes', 'no'] },
          dropped: { 'Fn::If': ['IsProd', 'yes', { Ref: 'AWS::NoValue' }] },
          list: ['a', { 'Fn::If': ['IsProd', 'b', { Ref: 'AWS::NoValue' }] }],
        },
        'Test',
      ),
    ).toEqual({ kept: 'yes', list: ['a'] });
  });

  it('names the place, the resource and the attributes it knows when an attribute is missing', () => {
    expect(() => resolver.resolve({ 'Fn::GetAtt': ['Queue', 'StreamArn'] }, 'Consumer.Properties')).toThrow(
      'Consumer.Properties (Fn::GetAtt): Queue (AWS::SQS::Queue) has no attribute StreamArn locally (known: Arn)',
    );
  });

  it('refuses what it cannot resolve faithfully, naming where', () => {
    expect(() => resolver.resolve({ 'Fn::ImportValue': 'Shared' }, 'Consumer.Properties.Env')).toThrow(
      'Consumer.Properties.Env: intrinsic Fn::ImportValue is not supported by the local deployment',
    );
    expect(() => resolver.resolve({ Ref: 'Ssm' }, 'Consumer')).toThrow(/parameter Ssm is read from SSM/);
    expect(() => resolver.resolve({ Ref: 'Nowhere' }, 'Consumer')).toThrow(
      /Nowhere is neither a parameter nor a resource/,
    );
  });
});

describe('creationOrder', () => {
  it('creates every resource after what it references or depends on', () => {
    const order = creationOrder({
      Machine: { Type: 'T', Properties: { Role: { 'Fn::GetAtt': ['Role', 'Arn'] } }, DependsOn: ['Policy'] },
      Policy: { Type: 'T', Properties: { Text: { 'Fn::Sub': ['${Role}:${Local}', { Local: 'x' }] } } },
      Function: { Type: 'T', Properties: { Env: { 'Fn::Sub': '${Table.Arn}/${AWS::Region}' } } },
      Role: { Type: 'T' },
      Table: { Type: 'T' },
    });
    const createdBefore = (first: string, second: string) => order.indexOf(first) < order.indexOf(second);
    expect(order).toHaveLength(5);
    expect([
      createdBefore('Role', 'Policy'),
      createdBefore('Policy', 'Machine'),
      createdBefore('Table', 'Function'),
    ]).toEqual([true, true, true]);
  });

  it('names the cycle', () => {
    expect(() =>
      creationOrder({
        A: { Type: 'T', Properties: { B: { Ref: 'B' } } },
        B: { Type: 'T', DependsOn: 'A' },
      }),
    ).toThrow('resources depend on each other in a cycle: A -> B -> A');
  });

  it('names a DependsOn that is not a resource', () => {
    expect(() => creationOrder({ A: { Type: 'T', DependsOn: ['Ghost'] } })).toThrow(
      'A: DependsOn names Ghost, which is not a resource of the template',
    );
  });
});

describe('physicalName', () => {
  it('is <stack>-<logical id> when it fits', () => {
    expect(physicalName('Demo', 'SourceQueue1A2B', { maxLength: 80, suffix: '.fifo' })).toBe(
      'Demo-SourceQueue1A2B.fifo',
    );
  });

  it('shortens with a hash within the limit, keeping the suffix, and lower-cases bucket names', () => {
    const name = physicalName('PoisonQuarantineDemo', `Content${'X'.repeat(60)}`, {
      maxLength: 63,
      lowercase: true,
    });
    expect(name).toHaveLength(63);
    expect(name).toMatch(/^poisonquarantinedemo-contentx+-[0-9a-f]{8}$/);
    expect(physicalName('S', 'Q'.repeat(100), { maxLength: 80, suffix: '.fifo' })).toMatch(
      /^.{66}-[0-9a-f]{8}\.fifo$/,
    );
  });
});
