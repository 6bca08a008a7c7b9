/**
 * `--output text`: the AWS CLI's text format, for grep, cut and awk. The rules are the AWS CLI's,
 * so a script written against one reads the other the same way:
 * - an object is one line of its scalar values, tab-separated, in the alphabetical order of their
 *   keys; below the top level the line starts with the key that held it, upper-cased;
 * - its lists and objects follow, each under its own key;
 * - the objects of one list share columns (the union of their scalar keys; a missing one is
 *   empty), so the same field is in the same column on every line;
 * - a list of scalars is one line at the top level, else one `KEY<TAB>value` line each;
 * - null is `None`, booleans `True` and `False`, as the AWS CLI prints them.
 * Every value goes through `printable`, so a tab or a line feed inside one cannot split a line
 * and nothing in it acts on a terminal.
 */
import { printable } from './output';

type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };
type JsonObject = { readonly [key: string]: Json };

export function textOutput(value: unknown): string {
  // Through JSON first: what --output json would print is what is formatted (dates as strings,
  // undefined fields absent).
  const json = JSON.parse(JSON.stringify(value) ?? 'null') as Json;
  return lines(json, undefined, undefined).join('');
}

function isScalar(value: Json | undefined): boolean {
  return value === null || typeof value !== 'object';
}

function isObject(value: Json): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A scalar as printed; an absent key (a column another element has) is an empty cell. */
function scalarText(value: Json | undefined): string {
  if (value === undefined) return '';
  if (value === null) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return printable(value);
}

function lines(value: Json, key: string | undefined, columns: readonly string[] | undefined): string[] {
  if (Array.isArray(value)) return listLines(value, key);
  if (isObject(value)) return objectLines(value, key, columns);
  return [`${scalarText(value)}\n`];
}

function objectLines(
  object: JsonObject,
  key: string | undefined,
  columns: readonly string[] | undefined,
): string[] {
  const names = Object.keys(object).sort();
  const scalarNames = columns ?? names.filter((name) => isScalar(object[name]));
  // In a list, a column may hold an object in one element: its cell is empty, the object follows.
  const nested = names.filter((name) => !isScalar(object[name]));
  const row = scalarNames.map((name) => (isScalar(object[name]) ? scalarText(object[name]) : ''));
  return [
    ...(row.length > 0
      ? [`${[...(key === undefined ? [] : [key.toUpperCase()]), ...row].join('\t')}\n`]
      : []),
    ...nested.flatMap((name) => lines(object[name] as Json, name, undefined)),
  ];
}

function listLines(list: readonly Json[], key: string | undefined): string[] {
  const objects = list.filter(isObject);
  if (objects.length > 0) {
    const columns = [
      ...new Set(objects.flatMap((object) => Object.keys(object).filter((name) => isScalar(object[name])))),
    ].sort();
    return list.flatMap((element) => lines(element, key, columns));
  }
  const scalars = list.filter(isScalar);
  const scalarLines =
    scalars.length === 0
      ? []
      : key === undefined
        ? [`${scalars.map(scalarText).join('\t')}\n`]
        : scalars.map((scalar) => `${key.toUpperCase()}\t${scalarText(scalar)}\n`);
  return [
    ...scalarLines,
    ...list.filter((element) => !isScalar(element)).flatMap((element) => lines(element, key, undefined)),
  ];
}
