"""One `onlooker mcp` server per test module, driven over stdio by the real `mcp` client."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp_harness import McpServer, running_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpServer]:
    with running_server(tmp_path_factory.mktemp("mcp-server")) as running:
        yield running
