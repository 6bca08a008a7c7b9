/**
 * Mermaid diagrams of the operations state machines, generated from their synthesized
 * definitions, so the README's diagrams cannot drift from the machines
 * (test/cdk/state-machine-diagrams.test.ts compares them). Every node is a real state. Edges
 * are the definition's transitions: a choice rule is labelled with its comment, a catch with
 * the errors it catches. Not drawn: what only a catch-all (`States.ALL`) leads to, the way out
 * of an unexpected task error; and the states a view folds into one node.
 */
import type { AslDefinition, AslState } from './synth';

/** How to draw one machine readably. */
export interface DiagramView {
  /**
   * Sub-chains drawn as one node: node name -> the states it stands for. The node name is one
   * of them; the first is the only one entered from outside the fold.
   */
  readonly folds: Readonly<Record<string, readonly string[]>>;
}

interface Edge {
  readonly to: string;
  readonly label?: string;
}

const END = '[*]';
const CATCH_ALL = 'States.ALL';

export function mermaidDiagram(definition: AslDefinition, view: DiagramView): string {
  const states = definition.States;
  const nodeOf = foldedNodes(states, view);
  const drawn = drawnStates(definition);
  checkFolds(states, view, drawn);

  // Each node's edges together, the nodes in the order a reader meets them.
  const edges = new Map<string, Set<string>>();
  for (const name of drawn) {
    const from = nodeOf(name);
    const lines = edges.get(from) ?? new Set<string>();
    edges.set(from, lines);
    for (const edge of edgesOf(states[name])) {
      const to = edge.to === END ? END : nodeOf(edge.to);
      if (to !== from) lines.add(`${from} --> ${to}${edge.label ? `: ${edge.label}` : ''}`);
    }
  }
  const lines = [`[*] --> ${nodeOf(definition.StartAt)}`, ...[...edges.values()].flatMap((set) => [...set])];
  return ['stateDiagram-v2', ...lines.map((line) => `  ${line}`)].join('\n');
}

/** The states drawn, in the order a reader meets them: reachable without a catch-all. */
export function drawnStates(definition: AslDefinition): string[] {
  const seen = [definition.StartAt];
  for (let index = 0; index < seen.length; index++) {
    for (const { to } of edgesOf(definition.States[seen[index]])) {
      if (to !== END && !seen.includes(to)) seen.push(to);
    }
  }
  return seen;
}

/** The transitions of one state, catch-alls left out. */
function edgesOf(state: AslState): Edge[] {
  const catches = (state.Catch ?? [])
    .filter((handler) => !handler.ErrorEquals.includes(CATCH_ALL))
    .map((handler) => ({ to: handler.Next, label: handler.ErrorEquals.map(shortError).join(' / ') }));
  const choices = (state.Choices ?? []).map((choice) => ({ to: choice.Next, label: choice.Comment }));
  const onward = [state.Next, state.Default].filter((to): to is string => to !== undefined);
  const ends = state.End || state.Type === 'Succeed' || state.Type === 'Fail' ? [END] : [];
  return [...choices, ...onward.map((to) => ({ to })), ...catches, ...ends.map((to) => ({ to }))];
}

/** `DynamoDb.ConditionalCheckFailedException` -> `ConditionalCheckFailed`, `States.Timeout` -> `Timeout`. */
const shortError = (error: string) => error.replace(/^[^.]+\./, '').replace(/Exception$/, '');

function foldedNodes(states: AslDefinition['States'], view: DiagramView): (state: string) => string {
  const fold = new Map<string, string>();
  for (const [node, members] of Object.entries(view.folds)) {
    for (const member of members) {
      if (!(member in states)) throw new Error(`fold ${node}: ${member} is no state of the machine`);
      if (fold.has(member)) throw new Error(`fold ${node}: ${member} is already in fold ${fold.get(member)}`);
      fold.set(member, node);
    }
    if (!members.includes(node)) throw new Error(`fold ${node} must be named after one of its states`);
  }
  return (state) => fold.get(state) ?? state;
}

/** Every folded state is drawn, and a fold is entered from outside at its first state only. */
function checkFolds(states: AslDefinition['States'], view: DiagramView, drawn: readonly string[]): void {
  for (const [node, members] of Object.entries(view.folds)) {
    const hidden = members.filter((member) => !drawn.includes(member));
    if (hidden.length > 0) throw new Error(`fold ${node}: ${hidden.join(', ')} would not be drawn anyway`);
    for (const from of drawn.filter((state) => !members.includes(state))) {
      const entered = edgesOf(states[from]).filter(({ to }) => members.includes(to) && to !== members[0]);
      if (entered.length > 0) {
        throw new Error(`fold ${node}: ${from} enters it at ${entered[0].to}, not at ${members[0]}`);
      }
    }
  }
}

/** How the README draws the pause machine: each step a node, the operator wait one node. */
export const PAUSE_VIEW: DiagramView = {
  folds: {
    IsPauseInput: [
      'IsPauseInput',
      'PauseDefaults',
      'ApplyPauseDefaults',
      'CheckPauseInput',
      'StartPauseClock',
    ],
    ReadBreaker: [
      'ReadBreaker',
      'IsBreakerReadable',
      'BreakerEpoch',
      'IsBreakerOfThisEpoch',
      'TakeStopFromBreaker',
      'TakeReasonFromBreaker',
    ],
    GetMappingSettings: [
      'GetMappingSettings',
      'RememberSettings',
      'RememberScaledSettings',
      'RememberUnscaledSettings',
    ],
    DisableMapping: [
      'DisableMapping',
      'ResetDisablePolls',
      'ReadMappingState',
      'IsMappingDisabled',
      'WaitForDisabled',
      'CountDisablePoll',
    ],
    RecordOpen: ['RecordOpen', 'ReadOriginalSettings', 'NotifyPaused'],
    OperatorActionAfterDisable: ['ReadOperatorAfterDisable', 'OperatorActionAfterDisable'],
    OperatorActionAfterCoolDown: ['ReadOperatorAfterCoolDown', 'OperatorActionAfterCoolDown'],
    RecordHalfOpen: ['RecordHalfOpen', 'EnableForProbe'],
    OperatorActionAfterProbe: ['ReadOperatorAfterProbe', 'OperatorActionAfterProbe', 'ReadBreakerAfterProbe'],
    DoubleCooldown: [
      'CountCoolDown',
      'CountProbeWindow',
      'PublishPausedTime',
      'DoubleCooldown',
      'CapCooldown',
      'UseMaxCooldown',
      'UseDoubledCooldown',
    ],
    AwaitOperatorResume: ['AwaitOperatorResume', 'OperatorResumeAction', 'NotifyUnknownOperatorAction'],
    EscalatePause: [
      'CountOverdueWait',
      'PublishPausedWait',
      'EscalatePause',
      'ReadEpochWhileWaiting',
      'HasEpochWhileWaiting',
      'EpochWhileWaiting',
      'IsStillThisEpoch',
    ],
    StopRequestInForceBeforeProbe: [
      'ReadStopsLiftedBeforeProbe',
      'ReadNewestStopRequestBeforeProbe',
      'StopRequestInForceBeforeProbe',
    ],
    StopRequestInForceBeforeRestore: [
      'ReadStopsLiftedBeforeRestore',
      'ReadNewestStopRequestBeforeRestore',
      'StopRequestInForceBeforeRestore',
    ],
    RestoreMapping: ['RestoreSettings', 'RestoreMapping', 'RestoreUnscaledMapping'],
    RecordClosed: ['RecordClosed', 'NotifyResumed'],
    PauseFailed: ['NotifyPauseFailed', 'PauseFailed'],
  },
};

/** How the README draws the verification machine: every state but the reminder's and the failure's. */
export const VERIFICATION_VIEW: DiagramView = {
  folds: {
    EscalateOutcomeUnknown: ['PublishDecisionOverdue', 'EscalateOutcomeUnknown'],
    ReadRecordMessageKey: ['ReadRecordMessageKey', 'RecordNamesItsItem'],
    VerificationFailed: ['NotifyVerificationFailed', 'VerificationFailed'],
  },
};
