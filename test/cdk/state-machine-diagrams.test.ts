/**
 * The state machine diagrams of docs/state-machines.md are the synthesized definitions, drawn: a change to a
 * machine fails here until the page shows it. `PQ_WRITE_DIAGRAMS=1` rewrites its
 * blocks instead of comparing them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type DiagramView,
  drawnStates,
  mermaidDiagram,
  PAUSE_VIEW,
  VERIFICATION_VIEW,
} from './state-machine-diagram';
import { type AslDefinition, stateMachineDefinition, synthPipeline } from './synth';

const DIAGRAMS_PAGE = path.join(__dirname, '..', '..', 'docs', 'state-machines.md');
const { template } = synthPipeline();
const machines = [
  ['verification', stateMachineDefinition(template, 'Verification').definition, VERIFICATION_VIEW],
  ['pause', stateMachineDefinition(template, 'Pause').definition, PAUSE_VIEW],
] as const;

/** The mermaid block after `<!-- generated: <name> state machine ... -->`, and where it is. */
function readmeBlock(readme: string, name: string) {
  const marker = `<!-- generated: ${name} state machine`;
  const at = readme.indexOf(marker);
  if (at === -1) throw new Error(`docs/state-machines.md has no "${marker}" marker`);
  const start = readme.indexOf('```mermaid\n', at) + '```mermaid\n'.length;
  const end = readme.indexOf('```', start);
  return { start, end, text: readme.slice(start, end).trimEnd() };
}

describe.each(machines)(
  'the docs/state-machines.md diagram of the %s state machine',
  (name, definition, view) => {
    it('is the one generated from the synthesized definition', () => {
      const generated = mermaidDiagram(definition, view);
      const readme = readFileSync(DIAGRAMS_PAGE, 'utf8');
      const block = readmeBlock(readme, name);
      if (process.env.PQ_WRITE_DIAGRAMS === '1' && block.text !== generated) {
        writeFileSync(
          DIAGRAMS_PAGE,
          `${readme.slice(0, block.start)}${generated}\n${readme.slice(block.end)}`,
        );
        return;
      }
      expect(block.text).toBe(generated);
    });

    it('draws every state, or folds it into a node of its own sub-chain, but for the ways out of a task error', () => {
      const drawn = new Set(drawnStates(definition));
      const errorPaths = afterCatchAll(definition);
      const missing = Object.keys(definition.States).filter(
        (state) => !drawn.has(state) && !errorPaths.has(state),
      );
      expect(missing).toEqual([]);
      for (const members of Object.values(view.folds)) {
        for (const member of members) expect(drawn.has(member), member).toBe(true);
      }
    });
  },
);

describe('mermaidDiagram', () => {
  const definition: AslDefinition = {
    StartAt: 'Ask',
    States: {
      Ask: { Type: 'Task', Next: 'Answer', Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Broken' }] },
      Answer: {
        Type: 'Choice',
        Choices: [{ Next: 'Ask', Comment: 'again' }],
        Default: 'Note',
      },
      Note: { Type: 'Pass', Next: 'Done' },
      Done: { Type: 'Succeed' },
      Broken: { Type: 'Fail' },
    },
  };

  it('draws transitions with choice comments, folds sub-chains and leaves out what only a catch-all reaches', () => {
    expect(mermaidDiagram(definition, { folds: { Done: ['Note', 'Done'] } })).toBe(
      [
        'stateDiagram-v2',
        '  [*] --> Ask',
        '  Ask --> Answer',
        '  Answer --> Ask: again',
        '  Answer --> Done',
        '  Done --> [*]',
      ].join('\n'),
    );
  });

  it.each<[string, DiagramView, RegExp]>([
    ['a state that does not exist', { folds: { Ask: ['Ask', 'Nothing'] } }, /Nothing is no state/],
    [
      'a fold named after no state in it',
      { folds: { Step: ['Note', 'Done'] } },
      /named after one of its states/,
    ],
    [
      'a fold entered past its first state',
      { folds: { Note: ['Note', 'Answer'] } },
      /Ask enters it at Answer/,
    ],
    ['a state only a catch-all reaches', { folds: { Ask: ['Ask', 'Broken'] } }, /Broken would not be drawn/],
  ])('refuses a view with %s', (_case, view, message) => {
    expect(() => mermaidDiagram(definition, view)).toThrow(message);
  });
});

/** Every state a catch-all (`States.ALL`) leads to, and every state after those. */
function afterCatchAll(definition: AslDefinition): Set<string> {
  const found = new Set<string>();
  const visit = (state: string | undefined) => {
    if (state === undefined || found.has(state)) return;
    found.add(state);
    const next = definition.States[state];
    [
      next.Next,
      next.Default,
      ...(next.Choices ?? []).map((c) => c.Next),
      ...(next.Catch ?? []).map((c) => c.Next),
    ].forEach(visit);
  };
  for (const state of Object.values(definition.States)) {
    for (const handler of state.Catch ?? [])
      if (handler.ErrorEquals.includes('States.ALL')) visit(handler.Next);
  }
  return found;
}
