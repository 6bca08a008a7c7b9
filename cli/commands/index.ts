/** Every command, in the order the overall help lists them. */
import type { Command } from '../command';
import { hold, resume } from './breaker';
import { cause } from './cause';
import { discard } from './discard';
import { freeze, unfreeze } from './freeze';
import { list } from './list';
import { replay } from './replay';
import { resetBreaker } from './reset-breaker';
import { show } from './show';
import { status } from './status';
import { verify } from './verify';

export const COMMANDS: readonly Command[] = [
  status,
  list,
  show,
  cause,
  replay,
  discard,
  verify,
  freeze,
  unfreeze,
  hold,
  resume,
  resetBreaker,
];
