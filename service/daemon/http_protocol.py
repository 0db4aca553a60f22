"""The HTTP/1.1 protocol the daemon serves with: uvicorn's httptools protocol, whose own refusal
of a request it cannot parse (malformed, or a URL over the parser's 64 KiB) is the §2 error
envelope, with a request id and counted in the error metric, instead of uvicorn's plain text."""

from __future__ import annotations

import logging

import orjson
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from service.api.metrics import ERRORS
from service.errors import InvalidParameter, error_envelope, new_request_id

log = logging.getLogger(__name__)

REFUSAL = InvalidParameter("Invalid HTTP request: malformed, or a URL over 64 KiB")
REFUSAL_BODY = orjson.dumps(error_envelope(REFUSAL))


class EnvelopeHttpToolsProtocol(HttpToolsProtocol):
    """Answers an unparseable request with 400 and the JSON envelope, then closes."""

    def send_400_response(self, msg: str) -> None:
        request_id = new_request_id()
        log.warning("refused an unparseable HTTP request (request id %s)", request_id)
        ERRORS.labels("http", REFUSAL.error_type).inc()
        head = [b"HTTP/1.1 400 Bad Request\r\n"]
        for name, value in self.server_state.default_headers:
            head += [name, b": ", value, b"\r\n"]
        head += [
            b"content-type: application/json\r\n",
            b"content-length: " + str(len(REFUSAL_BODY)).encode("ascii") + b"\r\n",
            b"x-request-id: " + request_id.encode("ascii") + b"\r\n",
            b"connection: close\r\n\r\n",
        ]
        self.transport.write(b"".join(head) + REFUSAL_BODY)
        self.transport.close()
