/**
 * Wraps the consumer's ports so that a fault plan can fail any call by its name
 * (fault-points.ts). A failure leaves the port as the adapter's own error would, with an
 * SDK-shaped cause (name and HTTP status), so the consumer sees exactly what AWS would make it see.
 * Used by the fault campaign over the in-memory world and by the local runner against moto.
 */

import type { ConsumerPorts } from '../../lambdas/ports/consumer-ports';
import {
  ControlStateUnavailableError,
  LedgerUnavailableError,
  OperationsUnavailableError,
  QuarantineWriteError,
  SourceQueueError,
} from '../../lambdas/ports/errors';
import type { FaultKind, FaultPoint } from './fault-points';

/** One call through a port, as a plan sees it; `key` is the message key when the call names one. */
export interface FaultCall {
  readonly point: FaultPoint;
  readonly key?: string;
}

export interface FaultPlan {
  /** The fault to inject into this call, if any; asked once per call. */
  faultFor(call: FaultCall): FaultKind | undefined;
  /**
   * The worker dies here: no code of the consumer may run after it. A real process exits; the
   * in-memory world returns a promise that never settles.
   */
  crash(call: FaultCall, afterSend: boolean): Promise<never>;
}

type PortName = keyof ConsumerPorts;

/** The error each adapter raises when its AWS call fails. */
const ADAPTER_ERRORS: Record<PortName, new (message: string, options?: ErrorOptions) => Error> = {
  ledger: LedgerUnavailableError,
  control: ControlStateUnavailableError,
  quarantine: QuarantineWriteError,
  operations: OperationsUnavailableError,
  queue: SourceQueueError,
};

/** The SDK error each fault stands for. */
const SDK_ERRORS: Record<Exclude<FaultKind, 'crash' | 'crash-after-send'>, [string, number | undefined]> = {
  throttle: ['ThrottlingException', 400],
  'server-error': ['InternalServerError', 500],
  'access-denied': ['AccessDeniedException', 403],
  'timeout-after-send': ['TimeoutError', undefined],
};

export function withFaults(ports: ConsumerPorts, plan: FaultPlan): ConsumerPorts {
  return {
    ledger: wrapPort(ports.ledger, 'ledger', plan),
    control: wrapPort(ports.control, 'control', plan),
    quarantine: wrapPort(ports.quarantine, 'quarantine', plan),
    operations: wrapPort(ports.operations, 'operations', plan),
    queue: wrapPort(ports.queue, 'queue', plan),
  };
}

function wrapPort<T extends object>(port: T, name: PortName, plan: FaultPlan): T {
  return new Proxy(port, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args: unknown[]) => {
        const call = describeCall(name, property, args);
        return injected(call, plan, ADAPTER_ERRORS[name], () => value.apply(target, args));
      };
    },
  });
}

async function injected<T>(
  call: FaultCall,
  plan: FaultPlan,
  AdapterError: new (message: string, options?: ErrorOptions) => Error,
  send: () => Promise<T>,
): Promise<T> {
  const fault = plan.faultFor(call);
  switch (fault) {
    case undefined:
      return send();
    case 'crash':
      return plan.crash(call, false);
    case 'crash-after-send':
      await send();
      return plan.crash(call, true);
    case 'timeout-after-send':
      // Landed or not, the caller only learns that the answer never came.
      await send().catch(() => undefined);
      throw injectedError(call, fault, AdapterError);
    default:
      throw injectedError(call, fault, AdapterError);
  }
}

function injectedError(
  call: FaultCall,
  fault: keyof typeof SDK_ERRORS,
  AdapterError: new (message: string, options?: ErrorOptions) => Error,
): Error {
  const [name, status] = SDK_ERRORS[fault];
  const cause = Object.assign(new Error(`injected ${fault} at ${call.point}`), {
    name,
    ...(status === undefined ? {} : { $metadata: { httpStatusCode: status } }),
  });
  const described = status === undefined ? name : `${name} (HTTP ${status})`;
  return new AdapterError(`${call.point} failed: ${described} (injected)`, { cause });
}

/** The fault point's name and the message key, read from the arguments of each port method. */
function describeCall(port: PortName, method: string, args: readonly unknown[]): FaultCall {
  const [first] = args;
  if (port === 'ledger' && method === 'recordExternal') {
    const status = (args[2] as { status: string }).status;
    return { point: `ledger.recordExternal:${status}` as FaultPoint, key: first as string };
  }
  const point = `${port}.${method}` as FaultPoint;
  if (port === 'ledger' && method !== 'inFlightKeysOf') {
    return { point, key: typeof first === 'string' ? first : (first as { key: string }).key };
  }
  if (port === 'control' && method === 'lostCompletion') return { point, key: first as string };
  if (port === 'control' && method === 'recordLostCompletion')
    return { point, key: (first as { key: string }).key };
  if (port === 'quarantine' && method === 'putRecord')
    return { point, key: (first as { messageKey: string }).messageKey };
  if (port === 'operations' && method === 'startOutcomeUnknown') {
    return { point, key: (first as { messageKey: string }).messageKey };
  }
  return { point };
}
