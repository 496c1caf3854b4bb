"""The viewer stays local: a foreign `Host` header is refused (DNS rebinding), a write needs the
per-server token and the viewer's own origin, `--read-only` serves no write, and every response
forbids fetching anything but the viewer's own files."""

from __future__ import annotations

import http.client
from pathlib import Path

from viewer import running_viewer

from onlooker.core.assessment import Finding
from onlooker.store import Store


def finding(home: Path) -> str:
    with Store(home) as store:
        created = store.create([Finding(content="Token logged in plain text", observer="audit",
                                        severity="high")], project="app-00000000")  # fmt: skip
    return created[0].observation.id


def status_of(home: Path, finding_id: str) -> str:
    with Store(home) as store:
        return store.get((finding_id,))[0].finding.status


def test_a_foreign_host_is_refused_and_loopback_names_are_served(onlooker_home: Path) -> None:
    with running_viewer() as viewer:
        for host in ("evil.example", f"evil.example:{viewer.port}", "127.0.0.1:1", ""):
            status, body = viewer.request("GET", "/api/sessions", headers={"Host": host})
            assert status == 421 and "foreign Host header" in body["error"], host
        for host in ("127.0.0.1", "localhost", "[::1]"):
            status, _ = viewer.request("GET", "/api/sessions",
                                       headers={"Host": f"{host}:{viewer.port}"})  # fmt: skip
            assert status == 200, host


def test_a_write_needs_the_token_and_the_same_origin(onlooker_home: Path) -> None:
    found = finding(onlooker_home)
    with running_viewer() as viewer:
        path = f"/api/findings/{found}/acknowledge"
        origin = f"http://127.0.0.1:{viewer.port}"
        token = viewer.token()
        refused = [
            {},  # neither
            {"Origin": origin},  # no token
            {"x-onlooker-token": "guess", "Origin": origin},
            {"x-onlooker-token": token},  # no Origin: not from a page of the viewer
            {"x-onlooker-token": token, "Origin": "http://evil.example"},
            {"x-onlooker-token": token, "Origin": origin, "Sec-Fetch-Site": "cross-site"},
        ]
        for headers in refused:
            status, body = viewer.request("POST", path, {}, headers)
            assert status == 403, (headers, body)
        assert status_of(onlooker_home, found) == "open"

        status, body = viewer.write(path)
        assert status == 200 and body["finding"]["status"] == "acknowledged"
        assert status_of(onlooker_home, found) == "acknowledged"


def test_read_only_serves_no_write(onlooker_home: Path) -> None:
    found = finding(onlooker_home)
    with running_viewer("--read-only") as viewer:
        assert 'content="read-only"' in viewer.request("GET", "/")[1]
        for path in (f"/api/findings/{found}/acknowledge", f"/api/findings/{found}/resolve",
                     "/api/memories/1/forget", "/api/improvements/steer"):  # fmt: skip
            status, _ = viewer.write(path, {"project": "app-00000000", "text": "x"})
            assert status in (404, 405), path
        status, body = viewer.request("GET", "/api/findings")
        assert status == 200 and [f["id"] for f in body["findings"]] == [found]
    assert status_of(onlooker_home, found) == "open"


def test_every_response_forbids_anything_but_its_own_files(onlooker_home: Path) -> None:
    with running_viewer() as viewer:
        for path in ("/", "/static/app.js", "/api/sessions"):
            connection = http.client.HTTPConnection("127.0.0.1", viewer.port)
            connection.request("GET", path, headers={"Host": f"127.0.0.1:{viewer.port}"})
            answer = connection.getresponse()
            answer.read()
            csp = answer.getheader("content-security-policy", "")
            assert csp.startswith("default-src 'none'; script-src 'self'"), path
            assert "frame-ancestors 'none'" in csp
            assert answer.getheader("x-content-type-options") == "nosniff"
            connection.close()


def test_a_timeline_is_read_only_from_the_journals(onlooker_home: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.jsonl").write_text(
        '{"kind":"user_prompt","at":"2026-01-01T00:00:00+00:00","text":"private"}\n'
    )
    (onlooker_home / "journals" / "p").mkdir(parents=True)
    with running_viewer() as viewer:
        for project, session in (("p", "../../../outside"), ("..", "outside"), ("p/../..", "x"),
                                 ("", "x"), ("p", "")):  # fmt: skip
            status, body = viewer.request(
                "GET", f"/api/timeline?project={project}&session={session}"
            )
            assert status == 400 and body["error"].startswith("project, session:"), (
                project,
                session,
            )
        status, body = viewer.request("GET", "/api/sessions?project=..")
        assert status == 400 and body["error"] == "project: a project key, not '..'"
        status, body = viewer.write("/api/improvements/steer", {"project": "..", "text": "x"})
        assert status == 400 and body["error"] == "project: no project '..' in this data home"
        status, body = viewer.request("GET", "/api/timeline?project=p&session=none")
        assert status == 200 and body["items"] == []
