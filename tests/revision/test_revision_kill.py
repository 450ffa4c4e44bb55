"""A grading run killed with SIGKILL leaves no process behind, and its temp directories are reaped."""

from __future__ import annotations

import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from icae_env.revision.checks.browser import descendant_pids
from icae_env.sandbox.session_box import TEMP_PREFIX, reap_stale_dirs

SCRIPT = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {tests!r})
    from pathlib import Path
    from revision_packs import write_revision_pack
    from icae_env.revision import grade, load_revision_pack
    criteria = [{{
        "id": "SLOW", "category": "interaction", "text": "waits",
        "check": {{"type": "browser", "actions": [{{"do": "wait", "ms": 10000}}],
                   "expect": [{{"selector": "h1", "count": 1}}]}},
    }}]
    task = load_revision_pack(write_revision_pack(Path({base!r}), criteria=criteria))
    print("grading", flush=True)
    grade(task, task.golden_dir)
    """
)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_sigkill_during_a_browser_check(tmp_path: Path) -> None:
    script = SCRIPT.format(tests=str(Path(__file__).resolve().parents[1]), base=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "grading"
        deadline = time.monotonic() + 60
        while not any("chrom" in Path(f"/proc/{p}/comm").read_text() for p in descendant_pids(proc.pid) if _alive(p)):
            assert time.monotonic() < deadline, "the browser never started"
            time.sleep(0.2)
        time.sleep(1.0)  # the app, the relay and the page are up
        tree = descendant_pids(proc.pid)
        assert len(tree) >= 3
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    deadline = time.monotonic() + 30
    while [p for p in tree if _alive(p)] and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [p for p in tree if _alive(p)], "the browser, app or sandbox outlived the killed run"
    leftovers = list(Path(tempfile.gettempdir()).glob(f"{TEMP_PREFIX}{proc.pid}-*"))
    assert leftovers, "a SIGKILLed run cannot clean up its temp directories itself"
    reap_stale_dirs()
    assert not list(Path(tempfile.gettempdir()).glob(f"{TEMP_PREFIX}{proc.pid}-*"))
