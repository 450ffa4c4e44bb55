"""Workspaces built to break or game the grader: each one becomes a verdict, never an exception or a false PASS."""

from __future__ import annotations

import os
import shutil
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import icae_env
from icae_env.revision import Verdict, grade
from icae_env.revision.app import _short_path
from icae_env.revision.pack import starting_workspace


def _golden_copy(task, tmp_path: Path) -> Path:
    work = tmp_path / "ws"
    shutil.copytree(task.golden_dir, work)
    return work


def test_special_files_deep_trees_and_a_planted_app_dir(revision_task, tmp_path: Path) -> None:
    work = _golden_copy(revision_task, tmp_path)
    os.mkfifo(work / "scratch.pipe")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(work / "agent.sock"))
    deep = work
    for _ in range(80):
        deep = deep / "d"
    deep.mkdir(parents=True)
    (work / ".icae-app").write_text("not a directory")
    (work / "outside").symlink_to("/etc/passwd")
    try:
        report = grade(revision_task, work, criteria=("AC04", "AC05", "AC06", "AC07"))
    finally:
        listener.close()
    assert set(report.verdicts().values()) == {"PASS"}, [c.reason for c in report.criteria]
    notes = " | ".join(report.workspace_notes)
    assert "scratch.pipe: skipped, a special file" in notes and "agent.sock: skipped" in notes
    assert "deeper than" in notes and "outside: skipped" in notes


def test_a_symlink_standing_in_for_a_checked_file_fails(revision_task, tmp_path: Path) -> None:
    work = starting_workspace(revision_task, tmp_path / "ws")
    (tmp_path / "elsewhere").mkdir()
    shutil.copy(revision_task.start_dir / "data.json", tmp_path / "elsewhere" / "data.json")
    (work / "data.json").unlink()
    (work / "data.json").symlink_to("../elsewhere/data.json")  # relative, but it leads out of the workspace
    report = grade(revision_task, work, criteria=("AC06",))
    assert report.criteria[0].verdict is Verdict.FAIL


def test_the_workspace_is_graded_as_it_was_at_submit(revision_pack: Path) -> None:
    env = icae_env.make("icae/Revision-v0", task=str(revision_pack), sandbox_options={"isolation": "bwrap"})
    try:
        env.reset(seed=0)
        env.step({"tool": "bash", "command": "(sleep 1; echo '{\"version\": 2}' > data.json) > /dev/null 2>&1 &"})
        _, _, _, _, info = env.step({"tool": "submit"})
        verdicts = {c["id"]: c["verdict"] for c in info["score"]["criteria"]}
        assert verdicts["AC06"] == "PASS"
    finally:
        env.close()


def test_an_app_that_floods_its_log_is_capped(revision_task, tmp_path: Path) -> None:
    flood = revision_task.app.model_copy(
        update={"start": "python3 -c \"import sys\nwhile True: sys.stdout.write('x' * 65536)\"", "ready_timeout_s": 3}
    )
    task = revision_task.model_copy(update={"app": flood})
    report = grade(task, task.golden_dir, criteria=("AC07",), evidence_dir=tmp_path / "ev", check_baseline=False)
    reason = report.criteria[0].reason
    assert report.criteria[0].verdict is Verdict.FAIL and len(reason) < 1000
    assert "exited before answering" in reason  # its output was cut at MAX_LOG_BYTES, so it died of SIGPIPE
    assert (tmp_path / "ev" / "AC07" / "app.log").stat().st_size <= 20_000


class _Host(BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.hits.append(self.path)
        self.send_response(200)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.end_headers()
        self.wfile.write(b"host secret")

    def log_message(self, *args: object) -> None:
        return None


def test_the_page_cannot_reach_the_host_or_fake_a_style(revision_task, tmp_path: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Host)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        work = starting_workspace(revision_task, tmp_path / "ws")
        script = (
            f"<script>fetch('http://127.0.0.1:{server.server_port}/leak').then(r => r.text())"
            ".then(t => document.getElementById('title').textContent = t).catch(() => {});\n"
            "const real = window.getComputedStyle;\n"
            "window.getComputedStyle = (e) => ({getPropertyValue: () => 'rgb(0, 0, 255)'});\n"
            "CSSStyleDeclaration.prototype.getPropertyValue = () => 'rgb(0, 0, 255)';</script>"
        )
        page = (work / "index.html").read_text().replace("</body>", script + "</body>")
        (work / "index.html").write_text(page)
        report = grade(revision_task, work, criteria=("AC02", "AC03"), evidence_dir=tmp_path / "ev")
    finally:
        server.shutdown()
    assert report.verdicts() == {"AC02": "FAIL", "AC03": "PASS"}, [c.reason for c in report.criteria]
    assert _Host.hits == []
    assert "[blocked] GET http://127.0.0.1:" in (tmp_path / "ev" / "AC03" / "actions.log").read_text()


def test_a_server_that_trickles_its_answer_is_cut_off(revision_task, tmp_path: Path) -> None:
    server = (
        "import socket, time, os\n"
        "s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
        "s.bind(('127.0.0.1', int(os.environ['PORT']))); s.listen(8)\n"
        "while True:\n"
        "    c, _ = s.accept(); request = c.recv(65536)\n"
        "    if not request.startswith(b'GET /x '): c.sendall(b'HTTP/1.0 200 OK\\r\\n\\r\\nok'); c.close(); continue\n"
        "    c.sendall(b'HTTP/1.0 200 OK\\r\\nContent-Length: 100\\r\\n\\r\\n')\n"
        "    try:\n"
        "        [c.sendall(b'x') or time.sleep(0.5) for _ in range(100)]\n"
        "    except OSError:\n"
        "        c.close()\n"
    )  # the readiness probe gets an answer at once; only /x trickles (headers at once, then a byte every 0.5 s)
    work = _golden_copy(revision_task, tmp_path)
    (work / "slow.py").write_text(server)
    criterion = {
        "id": "SLOW",
        "category": "functional",
        "text": "answers",
        "check": {"type": "http", "timeout_s": 2, "requests": [{"path": "/x", "status": 200}]},
    }
    from icae_env.revision.models import Criterion

    task = revision_task.model_copy(
        update={
            "app": revision_task.app.model_copy(update={"start": "python3 slow.py", "ready_path": "/"}),
            "criteria": (Criterion.model_validate(criterion),),
        }
    )
    report = grade(task, work, check_baseline=False)
    assert report.criteria[0].verdict is Verdict.FAIL
    assert "no complete response within 2 s" in report.criteria[0].reason


def test_earlier_evidence_never_validates_a_later_verdict(revision_task, tmp_path: Path) -> None:
    evidence = tmp_path / "ev"
    assert grade(revision_task, revision_task.golden_dir, criteria=("AC02",), evidence_dir=evidence).full_pass
    broken = revision_task.model_copy(update={"app": revision_task.app.model_copy(update={"start": "exit 1"})})
    report = grade(broken, broken.golden_dir, criteria=("AC02",), evidence_dir=evidence, check_baseline=False)
    assert report.criteria[0].valid is False and not (evidence / "AC02" / "screenshot.png").exists()


def test_long_socket_paths_get_a_short_link(tmp_path: Path) -> None:
    long_dir = tmp_path / ("x" * 120)
    long_dir.mkdir()
    with _short_path(long_dir) as short:
        assert len(str(short / "app.sock")) < 100 and short.resolve() == long_dir.resolve()
    assert not short.exists()


@pytest.mark.parametrize(
    ("expect", "message"),
    [
        ({"file": "/etc/passwd", "regex": "x"}, "relative to the workspace"),
        ({"file": "../golden/app.js", "regex": "x"}, "relative to the workspace"),
        ({"file": ".", "regex": "x"}, "relative to the workspace"),
        ({"file": "a.json", "json_path": "items[0", "equals": 1}, "json_path"),
    ],
)
def test_source_patterns_are_checked_at_load(expect: dict, message: str) -> None:
    from icae_env.revision.check_models import SourceExpect

    with pytest.raises(ValueError, match=message):
        SourceExpect.model_validate(expect)
