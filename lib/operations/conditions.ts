/**
 * The conditions both machines test their input and their reads with. Each checks the path
 * exists and has the type first: a comparison on a missing path is a runtime error in Step
 * Functions, and a machine must answer bad input with its own InvalidInput failure instead.
 */
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';

export const isText = (path: string) =>
  sfn.Condition.and(sfn.Condition.isPresent(path), sfn.Condition.isString(path));

export const isNumber = (path: string) =>
  sfn.Condition.and(sfn.Condition.isPresent(path), sfn.Condition.isNumeric(path));

export const isFlag = (path: string) =>
  sfn.Condition.and(sfn.Condition.isPresent(path), sfn.Condition.isBoolean(path));

export const isAtLeastOne = (path: string) =>
  sfn.Condition.and(isNumber(path), sfn.Condition.numberGreaterThanEquals(path, 1));

export const textIs = (path: string, value: string) =>
  sfn.Condition.and(isText(path), sfn.Condition.stringEquals(path, value));

/** The execution input's `kind` (contract/executions.ts): each machine accepts its own only. */
export const kindIs = (kind: string) => textIs('$.kind', kind);
