"""Runs LocalStack (localstack-core) on this host, without Docker, as the embedded LocalStack.

Usage (tools/localstack/localstack.ts does this):
    .venv-localstack/bin/python tools/localstack/localstack-launcher.py

Configured by the environment localstack.ts sets (GATEWAY_LISTEN=127.0.0.1:PORT, DNS off,
DYNAMODB_LOCAL_PORT the port of our moto server, ...). Four changes to LocalStack itself, each
because the host has no Docker and no network, or because nothing may listen beyond loopback:

1. Loopback only. LocalStack's twisted gateway builds its IPv4 endpoint without the configured
   host (`TCP4ServerEndpoint(reactor, port)`: every interface), whatever GATEWAY_LISTEN says;
   here every TCP4ServerEndpoint without an interface gets 127.0.0.1.
2. DynamoDB is our moto server. LocalStack proxies DynamoDB to DynamoDB Local, a Java program it
   downloads at first use; here it proxies to 127.0.0.1:DYNAMODB_LOCAL_PORT and starts nothing.
3. Lambda functions become Active without a runtime. Preparing a function version pulls a
   Docker image; skipped, the function is created but cannot be invoked. Our runner runs the
   consumer itself, as on moto.
4. No event source mapping polls. The mapping is created, enabled and disabled as CloudFormation
   and the pause state machine ask, but LocalStack never receives from the queue: our runner
   plays the mapping, as on moto.

It exits when its standard input closes: localstack.ts holds the other end of that pipe, so a
test worker killed on a timeout, or a command stopped by Ctrl-C or SIGKILL, takes LocalStack with
it instead of leaving it running, parented to init.
"""

import os
import sys
import threading

import twisted.internet.endpoints as endpoints

_Tcp4ServerEndpoint = endpoints.TCP4ServerEndpoint


class _LoopbackTcp4ServerEndpoint(_Tcp4ServerEndpoint):  # type: ignore[misc, valid-type]
    def __init__(self, reactor, port, backlog=50, interface=""):  # type: ignore[no-untyped-def]
        super().__init__(reactor, port, backlog, interface or "127.0.0.1")


endpoints.TCP4ServerEndpoint = _LoopbackTcp4ServerEndpoint  # type: ignore[misc]

from localstack.services.dynamodb.server import DynamodbServer  # noqa: E402
from localstack.services.lambda_.event_source_mapping.pollers.sqs_poller import SqsPoller  # noqa: E402
from localstack.services.lambda_.invocation.docker_runtime_executor import (  # noqa: E402
    DockerRuntimeExecutor,
)

DynamodbServer.start_dynamodb = lambda self: True  # type: ignore[method-assign]
DynamodbServer.stop_dynamodb = lambda self: None  # type: ignore[method-assign]
DockerRuntimeExecutor.prepare_version = classmethod(lambda cls, function_version: None)  # type: ignore[method-assign, assignment]
SqsPoller.poll_events = lambda self: None  # type: ignore[method-assign]


def _exit_when_parent_goes() -> None:
    # Blocks until the pipe's other end is closed: only the parent's exit closes it. Raw reads of
    # fd 0, not sys.stdin: a daemon thread holding stdin's buffer lock makes the interpreter's
    # own exit abort ("could not acquire lock ... at interpreter shutdown").
    while os.read(0, 65536):
        pass
    os._exit(0)


if __name__ == "__main__":
    if not os.environ.get("DYNAMODB_LOCAL_PORT"):
        sys.exit("localstack-launcher.py: DYNAMODB_LOCAL_PORT (the moto server's port) is required")
    threading.Thread(target=_exit_when_parent_goes, daemon=True).start()
    from localstack.runtime.main import main

    main()
