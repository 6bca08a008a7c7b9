/**
 * The `faults` field of a rehearsal scenario: every bad field named at once with the value given,
 * and the parser's notion of which fault points carry a message key kept equal to the injector's.
 */
import { describe, expect, it } from 'vitest';
import type { ConsumerPorts } from '../../lambdas/ports/consumer-ports';
import { KEYED_FAULT_POINTS } from '../../local/faults/shared-plan';
import { SEED } from '../../local/rehearsal/default-scenarios';
import { parseScenarios } from '../../local/rehearsal/scenario';
import { FAULT_POINTS } from '../../sim/faults/fault-points';
import { type FaultCall, withFaults } from '../../sim/faults/inject';

const withFaultList = (faults: unknown) => ({ ...JSON.parse(JSON.stringify(SEED)), faults });

function problems(scenario: unknown): string {
  try {
    parseScenarios(scenario, 'test.json');
  } catch (error) {
    return (error as Error).message;
  }
  return '';
}

describe('scenario faults', () => {
  it('accepts faults with and without times and message, keeping them as given', () => {
    // Prepare
    const faults = [
      { at: 'ledger.start', error: 'throttle', times: 2, message: 'M1' },
      { at: 'control.snapshot', error: 'crash' },
    ];
    // Act
    const [scenario] = parseScenarios(withFaultList(faults), 'test.json');
    // Assess
    expect(scenario.faults).toStrictEqual(faults);
  });

  it('names every bad field of every fault at once, with the value given', () => {
    const message = problems(
      withFaultList([
        { at: 'ledger.begin', error: 'meltdown', times: 0, message: 'M9', when: 'now' },
        { at: 'ledger.complete', error: 'crash', times: 1.5 },
        'throttle',
      ]),
    );
    expect(message).toContain('faults[0].at must be one of ledger.start, ');
    expect(message).toContain('(given "ledger.begin")');
    expect(message).toContain(
      'faults[0].error must be one of throttle, server-error, access-denied, timeout-after-send, crash, crash-after-send (given "meltdown")',
    );
    expect(message).toContain('faults[0].times must be a whole number from 1 to 100 (given 0)');
    expect(message).toContain('faults[0].message names no message of this scenario (given "M9")');
    expect(message).toContain('faults[0].when is not a known field (known: at, error, times, message)');
    expect(message).toContain('faults[1].times must be a whole number from 1 to 100 (given 1.5)');
    expect(message).toContain('faults[2] must be an object {at, error, times?, message?} (given "throttle")');
  });

  it('refuses a message restriction at a point whose calls name no message: it could never fire', () => {
    expect(problems(withFaultList([{ at: 'control.snapshot', error: 'throttle', message: 'M1' }]))).toContain(
      'faults[0].message cannot restrict control.snapshot: its calls name no message',
    );
  });

  it('refuses an empty or non-array faults field', () => {
    expect(problems(withFaultList([]))).toContain('faults must be a non-empty array');
    expect(problems(withFaultList({ at: 'ledger.start' }))).toContain('faults must be a non-empty array');
  });

  it('knows the keyed points exactly as the injector reads keys from the arguments', () => {
    // Prepare: ports that accept anything, and a plan that records what it is asked.
    const seen: FaultCall[] = [];
    const port = new Proxy({}, { get: () => async () => undefined });
    const ports = { ledger: port, control: port, quarantine: port, operations: port, queue: port };
    const faulty = withFaults(ports as unknown as ConsumerPorts, {
      faultFor: (call) => {
        seen.push(call);
        return undefined;
      },
      crash: () => new Promise<never>(() => undefined),
    });
    // Act: one call per point, with the argument shapes the ports take.
    for (const point of FAULT_POINTS) {
      const [name, status] = point.split(':');
      const [portName, method] = name.split('.') as [keyof ConsumerPorts, string];
      const stringKey =
        (portName === 'ledger' && !['start', 'restartAfterCrash'].includes(method)) ||
        point === 'control.lostCompletion';
      const first = stringKey ? 'k' : { key: 'k', messageKey: 'k' };
      (faulty[portName] as unknown as Record<string, (...args: unknown[]) => unknown>)[method](first, 'a', {
        status,
      });
    }
    // Assess
    expect(seen.filter((call) => call.key === 'k').map((call) => call.point)).toStrictEqual(
      FAULT_POINTS.filter((point) => KEYED_FAULT_POINTS.includes(point)),
    );
  });
});
