/** The console's actions by name, and where each one's confirmation page is. */

export const ACTIONS = [
  'cause',
  'replay',
  'replay-group',
  'verify',
  'discard',
  'freeze',
  'unfreeze',
  'hold',
  'resume',
  'backstop-take',
  'backstop-redrive',
] as const;
export type ActionName = (typeof ACTIONS)[number];

export function isAction(name: string): name is ActionName {
  return (ACTIONS as readonly string[]).includes(name);
}

/** The confirmation page of an action, about one record (`id`) or one failure group (`group`). */
export function actionHref(
  action: ActionName,
  subject: { readonly id?: string; readonly group?: string; readonly message?: string } = {},
) {
  const query = new URLSearchParams(
    Object.entries(subject).filter((entry): entry is [string, string] => entry[1] !== undefined),
  ).toString();
  return `/act/${action}${query ? `?${query}` : ''}`;
}
