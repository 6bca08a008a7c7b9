"""Runs moto's server, as `moto_server -H 127.0.0.1 -p PORT` does, with DynamoDB made atomic.

Why: moto's threaded server handles DynamoDB requests concurrently with no lock. An UpdateItem
checks its condition, then creates a keys-only item and applies the update to it in place, so
concurrent conditional writes to one item can both succeed and a loser's ALL_OLD can be the
half-built item. DynamoDB serialises the writes to one item; our race tests need that too.

How: one process-wide lock around every DynamoDB request (all tables, all actions, reads
included so none sees a half-applied write). It wraps the request handler's call_action, not
the backend's methods, because the handler reads the old item for ReturnValues before calling
the backend and serialises the result after it: both belong to the same atomic step. Requests
are still parsed concurrently; every other service is untouched. Step Functions' dynamodb:*
tasks reach DynamoDB over HTTP (localhost:$MOTO_PORT), so they take the same lock.

Usage (tools/local-aws/moto.ts does this): .venv/bin/python tools/local-aws/moto-launcher.py PORT
It listens on 127.0.0.1 only; MOTO_PORT should be set to PORT for Step Functions' calls.

It exits when its standard input closes: tools/local-aws/moto.ts holds the other end of that pipe, so a
test worker killed on a hook timeout, or a command stopped by Ctrl-C or SIGKILL, takes its server
with it instead of leaving it running, parented to init (issue 21, item 7).
"""

import os
import sys
import threading

from moto import server
from moto.dynamodb.responses import DynamoHandler

# One lock, not one per item or table: simplest, and moto runs one request at a time under the
# GIL anyway. A DynamoDB stream mapped to a Lambda function is invoked inside the write; functions
# cannot run here (no Docker), but one calling DynamoDB back over HTTP would wait on this lock.
_dynamodb_lock = threading.RLock()
_unlocked_call_action = DynamoHandler.call_action


def _call_action_atomically(self):  # type: ignore[no-untyped-def]
    with _dynamodb_lock:
        return _unlocked_call_action(self)


DynamoHandler.call_action = _call_action_atomically  # type: ignore[method-assign]


def _exit_when_parent_goes() -> None:
    # Blocks until the pipe's other end is closed: only the parent's exit closes it.
    sys.stdin.buffer.read()
    os._exit(0)

if __name__ == "__main__":
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        sys.exit("usage: moto-launcher.py PORT")
    threading.Thread(target=_exit_when_parent_goes, daemon=True).start()
    server.main(["-H", "127.0.0.1", "-p", sys.argv[1]])
