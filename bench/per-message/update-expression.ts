/**
 * Just enough of DynamoDB's UpdateExpression for the stand-in to answer ALL_NEW as DynamoDB
 * would on the healthy path: SET with values, names, `if_not_exists(...)` and `a + b` / `a - b`,
 * REMOVE, and ADD of numbers. Conditions are not evaluated (the healthy path always meets them).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

export type Item = Record<string, AttributeValue>;

export interface UpdateRequest {
  readonly UpdateExpression: string;
  readonly ExpressionAttributeNames?: Record<string, string>;
  readonly ExpressionAttributeValues?: Item;
}

const SECTION = /\b(SET|REMOVE|ADD|DELETE)\b/gi;

/** The item after the update, as a new object. */
export function applyUpdate(item: Item, request: UpdateRequest): Item {
  const next = { ...item };
  const name = (token: string) => request.ExpressionAttributeNames?.[token] ?? token;
  const operand = (text: string): AttributeValue | undefined => {
    const token = text.trim();
    if (token.startsWith(':')) return request.ExpressionAttributeValues?.[token];
    return next[name(token)];
  };
  for (const [keyword, body] of sections(request.UpdateExpression)) {
    for (const clause of splitTopLevel(body)) {
      if (keyword === 'SET') setClause(next, clause, name, operand);
      else if (keyword === 'REMOVE') delete next[name(clause.trim())];
      else if (keyword === 'ADD') addClause(next, clause, name, operand);
      else throw new Error(`the bench stand-in does not apply ${keyword}`);
    }
  }
  return next;
}

function sections(expression: string): [string, string][] {
  const marks = [...expression.matchAll(SECTION)];
  return marks.map((mark, index) => [
    mark[1].toUpperCase(),
    expression.slice((mark.index ?? 0) + mark[0].length, marks[index + 1]?.index ?? expression.length),
  ]);
}

/** Commas outside parentheses: `if_not_exists(#a, :b)` is one operand. */
function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < body.length; index++) {
    if (body[index] === '(') depth += 1;
    if (body[index] === ')') depth -= 1;
    if (body[index] === ',' && depth === 0) {
      parts.push(body.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(body.slice(start));
  return parts.map((part) => part.trim()).filter((part) => part.length > 0);
}

function setClause(
  item: Item,
  clause: string,
  name: (token: string) => string,
  operand: (text: string) => AttributeValue | undefined,
): void {
  const [target, expression] = clause.split(/=(.*)/s).map((part) => part.trim());
  const ifNotExists = expression.match(/^if_not_exists\(\s*([^,]+),(.+)\)$/);
  const arithmetic = expression.match(/^([^+-]+)([+-])(.+)$/);
  let value: AttributeValue | undefined;
  if (ifNotExists) value = operand(ifNotExists[1]) ?? operand(ifNotExists[2]);
  else if (arithmetic) {
    const sign = arithmetic[2] === '+' ? 1 : -1;
    value = { N: String(numberOf(operand(arithmetic[1])) + sign * numberOf(operand(arithmetic[3]))) };
  } else value = operand(expression);
  if (value === undefined) throw new Error(`the bench stand-in cannot evaluate "${clause}"`);
  item[name(target)] = value;
}

function addClause(
  item: Item,
  clause: string,
  name: (token: string) => string,
  operand: (text: string) => AttributeValue | undefined,
): void {
  const [target, value] = clause.split(/\s+/);
  item[name(target)] = { N: String(numberOf(item[name(target)]) + numberOf(operand(value))) };
}

function numberOf(value: AttributeValue | undefined): number {
  return value !== undefined && 'N' in value && value.N !== undefined ? Number(value.N) : 0;
}
