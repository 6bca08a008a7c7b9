/**
 * An AWS stand-in for the CPU measurement: an HTTP server on loopback that answers the
 * DynamoDB requests of a healthy message at once, with DynamoDB's response shapes, so the time
 * measured is the handler's own (SDK serialisation and parsing included), not the network's.
 * It runs in the bench's process; the handlers run in their own, where their CPU is counted.
 * Any request it does not know is refused, so a handler cannot quietly take another path.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyUpdate, type Item, type UpdateRequest } from './update-expression';

interface Request {
  readonly TableName?: string;
  readonly Key?: Item;
  readonly ReturnValues?: string;
  readonly RequestItems?: Record<string, unknown>;
}

export class AwsStandIn {
  private readonly items = new Map<string, Item>();
  private readonly server: Server = createServer((request, response) => this.serve(request, response));
  /** Requests answered, by `X-Amz-Target` (for the bench's own check of what it measured). */
  readonly answered = new Map<string, number>();

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private serve(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const target = String(request.headers['x-amz-target'] ?? '');
      this.answered.set(target, (this.answered.get(target) ?? 0) + 1);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Request;
      const answer = this.answer(target, body);
      response.writeHead(answer === undefined ? 400 : 200, {
        'content-type': 'application/x-amz-json-1.0',
      });
      response.end(
        JSON.stringify(
          answer ?? { __type: 'com.amazon.coral.validate#ValidationException', message: `bench: ${target}` },
        ),
      );
    });
  }

  private answer(target: string, body: Request): object | undefined {
    switch (target) {
      case 'DynamoDB_20120810.BatchGetItem':
        // An empty control table: no breaker, no trial, no freeze.
        return { Responses: {}, UnprocessedKeys: {} };
      case 'DynamoDB_20120810.PutItem':
        // Nobody reads a put item back on this path: accepted, not kept.
        return {};
      case 'DynamoDB_20120810.UpdateItem': {
        const id = this.keyOf(body, body.Key ?? {});
        const updated = applyUpdate({ ...this.items.get(id), ...body.Key }, body as unknown as UpdateRequest);
        this.items.set(id, updated);
        return body.ReturnValues === 'ALL_NEW' ? { Attributes: updated } : {};
      }
      default:
        return undefined;
    }
  }

  private keyOf(body: Request, key: Item): string {
    return `${body.TableName}|${JSON.stringify(Object.values(key))}`;
  }
}
