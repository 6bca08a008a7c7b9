import type { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';

export interface StateTablesProps {
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The attempts ledger and the control state (breaker, isolation trial, failure window, replay
 * freeze). Schemas: docs/design.md.
 */
export class StateTables extends Construct {
  /** One item per message key: attempts started and charged, state, stage, external call. */
  public readonly attempts: dynamodb.Table;
  /** Control items keyed by (pk, sk). */
  public readonly control: dynamodb.Table;

  constructor(scope: Construct, id: string, props: StateTablesProps) {
    super(scope, id);
    this.attempts = new dynamodb.Table(this, 'Attempts', {
      partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: 'expiresAt',
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy: props.removalPolicy,
    });
    // Sparse: an item has envId only while an attempt is in flight, so this index answers "what
    // did execution environment E have in flight when it died" (rules 5 and 6).
    this.attempts.addGlobalSecondaryIndex({
      indexName: 'byEnv',
      partitionKey: { name: 'envId', type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.KEYS_ONLY,
    });
    this.control = new dynamodb.Table(this, 'Control', {
      partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
      sortKey: { name: 'sk', type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: 'expiresAt',
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy: props.removalPolicy,
    });
  }

  /** ARN of the attempts table's byEnv index, for the consumer's Query permission. */
  public get byEnvIndexArn(): string {
    return `${this.attempts.tableArn}/index/byEnv`;
  }
}
