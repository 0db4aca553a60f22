"""Access log lines keep the method, path and status, never the query string."""

from __future__ import annotations

import logging

from uvicorn.logging import AccessFormatter

from service.config import Settings
from service.daemon.server import uvicorn_config
from service.logs import QuerylessAccessFilter


def test_access_lines_lose_the_query_string_where_search_text_travels() -> None:
    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", "/v1/search?query=my+salary&mode=hybrid", "1.1", 200),
        None,
    )
    assert QuerylessAccessFilter().filter(record)
    line = AccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s').format(record)
    assert line == '127.0.0.1:5000 - "GET /v1/search HTTP/1.1" 200 OK'


def test_the_server_config_leaves_the_filter_on_uvicorns_access_logger() -> None:
    access = logging.getLogger("uvicorn.access")
    for found in [f for f in access.filters if isinstance(f, QuerylessAccessFilter)]:
        access.removeFilter(found)
    uvicorn_config(Settings())
    assert [type(f) for f in access.filters if isinstance(f, QuerylessAccessFilter)] == [
        QuerylessAccessFilter
    ]
