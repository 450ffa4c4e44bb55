"""fetch_icae and ``icae-env icae fetch`` against a local mirror of a fake release (HTTP on 127.0.0.1, file://)."""

import fcntl
import json
import shutil
import sys
from collections import namedtuple
from pathlib import Path

import pytest
from icae_release import ALIASES, ENTRIES, PATHS, TASKS, MirrorServer, pack, pin, unreachable_url

from icae_env.cli import main
from icae_env.errors import ConfigError, DependencyNotInstalled, FetchError
from icae_env.icae_bench.download import DownloadPolicy
from icae_env.icae_bench.fetch import DOWNLOADS, MARKER, STATE_FILE, fetch_icae
from icae_env.icae_bench.load import load_icae_bench
from icae_env.icae_bench.manifest import load_manifest
from icae_env.tasks import load_task

FAST = DownloadPolicy(timeout_s=10, retries=1, backoff_s=0.01)
EVERYTHING = ["prd", "tests", "golden", "kotlin-image"]


def _fetch(root: Path, release, mirror: str, **options) -> object:
    return fetch_icae(root, mirror=mirror, manifest=release.manifest, policy=FAST, log=lambda line: None, **options)


def _leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.startswith(".icae-staging") or p.name == DOWNLOADS)


def test_happy_path_over_http_then_the_loader_finds_all_three_tiers(release, tmp_path):
    root = tmp_path / "root"
    with MirrorServer(release.mirror) as server:
        report = _fetch(root, release, server.url)
    assert report.installed == EVERYTHING and report.complete
    assert report.layout.aliases == len(ALIASES) and not report.layout.problems
    assert {r["path"].lstrip("/") for r in server.requests} == set(PATHS.values())
    for task_name, alias in zip(TASKS, ALIASES, strict=True):
        task, builtin = load_icae_bench(root, alias), load_task(task_name)
        assert task.available_tiers == ("public", "native", "enhanced")
        assert sorted(task.levels) == ["L1", "L2", "L3"]
        assert [task.tests.case_count(t) for t in ("native", "enhanced")] == [
            builtin.tests.case_count(t) for t in ("native", "enhanced")
        ]
        assert task.golden_dir is not None and any(task.golden_dir.rglob("test.sh"))
    assert (root / "images" / "kotlin_1.9.25.tar").read_bytes() == release.artifact("kotlin-image").read_bytes()
    assert json.loads((root / MARKER).read_text())["artifacts"]["prd"]["sha256"] == release.entry("prd")["sha256"]
    assert _leftovers(root) == []


def test_a_rerun_is_a_no_op_and_sends_no_request(release, tmp_path):
    root = tmp_path / "root"
    with MirrorServer(release.mirror) as server:
        _fetch(root, release, server.url)
        before = (len(server.requests), (root / "repo_alias.json").stat().st_mtime_ns)
        again = _fetch(root, release, server.url)
        assert (len(server.requests), (root / "repo_alias.json").stat().st_mtime_ns) == before
    assert again.installed == [] and again.skipped == EVERYTHING and again.complete


def test_a_root_with_another_tools_marker_is_a_no_op(release, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(release.source, root)
    (root / "images").mkdir()
    shutil.copy(release.artifact("kotlin-image"), root / "images")
    (root / MARKER).write_text("")
    with MirrorServer(release.mirror) as server:
        report = _fetch(root, release, server.url)
    assert server.requests == [] and report.skipped == EVERYTHING and report.complete


def test_only_fetches_one_artifact_and_the_marker_waits_for_all(release, tmp_path):
    root = tmp_path / "root"
    with MirrorServer(release.mirror) as server:
        tests = _fetch(root, release, server.url, only="tests")
        assert [r["path"] for r in server.requests] == ["/" + PATHS["tests"]]
        assert tests.installed == ["tests"] and not tests.complete and not (root / MARKER).exists()
        assert tests.layout.with_tests == len(ALIASES)
        _fetch(root, release, server.url, only="prd")
    assert load_icae_bench(root, ALIASES[0]).available_tiers == ("public", "native", "enhanced")
    assert not (root / "realcode_repos").exists() and not (root / MARKER).exists()


def test_cli_over_a_file_mirror_prints_the_alias_count(release, tmp_path, capsys):
    root = tmp_path / "root"
    args = ["icae", "fetch", "--root", str(root), "--mirror", release.mirror.as_uri(), "--manifest"]
    assert main([*args, str(release.manifest)]) == 0
    out = capsys.readouterr().out
    assert f"{len(ALIASES)} aliases (the full release has 480)" in out and "complete" in out
    assert load_icae_bench(root, ALIASES[2]).available_tiers == ("public", "native", "enhanced")


def test_unpinned_entries_are_verified_on_first_download_and_their_values_printed(release, tmp_path):
    lines: list[str] = []
    report = fetch_icae(tmp_path / "root", mirror=release.mirror.as_uri(), only="prd", log=lines.append)
    assert report.installed == ["prd"]  # the shipped manifest: unpinned, at the Zenodo paths
    computed = next(line for line in lines if "not pinned" in line)
    pinned = release.entry("prd")
    assert f'"size":{pinned["size"]}' in computed and pinned["sha256"] in computed


def test_shipped_manifest_names_the_zenodo_artifacts_and_pins_nothing():
    manifest = load_manifest()
    assert {n: a.path for n, a in manifest.artifacts.items()} == {
        "prd": "records/21639512/files/icae_prd_bundle.tar.gz",
        "tests": "records/21076652/files/rcb_tests_repos.tar.gz",
        "golden": "records/21071802/files/realcode_repos.tar.lz4",
        "kotlin-image": "records/21058690/files/kotlin_1.9.25.tar",
    }
    assert all(a.size is None and a.sha256 is None for a in manifest.artifacts.values())


@pytest.mark.parametrize(
    ("entry", "field"),
    [({"path": "records/1/files/x.tar", "sha256": "abc"}, "sha256"), ({"path": "../x.tar"}, "path")],
)
def test_a_bad_manifest_is_one_line_naming_the_field(tmp_path, entry, field):
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"artifacts": {"prd": entry}}))
    with pytest.raises(ConfigError, match=rf"m\.json: artifacts\.prd\.{field}: "):
        load_manifest(path)


def _one_error_line(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("icae-env: error: "), captured.err
    return lines[0]


def test_a_404_is_one_clear_line(release, tmp_path, capsys):
    with MirrorServer(tmp_path / "empty-mirror") as server:
        line = _one_error_line(capsys, ["icae", "fetch", "--root", str(tmp_path / "r"), "--mirror", server.url])
    assert line == f"icae-env: error: prd: HTTP 404 File not found: {server.url}/{PATHS['prd']}"
    assert len(server.requests) == 1  # a 4xx is final: no retry


def test_an_unreachable_host_is_one_clear_line(tmp_path, capsys):
    url = unreachable_url()
    argv = ["icae", "fetch", "--root", str(tmp_path / "r"), "--mirror", url, "--retries", "0", "--only", "tests"]
    line = _one_error_line(capsys, argv)
    assert f"tests: cannot reach {url.removeprefix('http://')} (Connection refused)" in line


def test_an_unreachable_host_is_retried_with_back_off(tmp_path):
    lines: list[str] = []
    policy = DownloadPolicy(retries=2, backoff_s=0.01)
    with pytest.raises(FetchError, match=r"gave up after 3 attempt\(s\)"):
        fetch_icae(tmp_path / "r", mirror=unreachable_url(), only="prd", policy=policy, log=lines.append)
    assert [line.rsplit("in ", 1)[1] for line in lines if "retrying" in line] == ["0.01 s", "0.02 s"]


Usage = namedtuple("Usage", "total used free")


@pytest.mark.parametrize("pinned", [True, False])
def test_the_free_disk_check_refuses_before_writing(release, tmp_path, monkeypatch, pinned):
    manifest = release.manifest
    if not pinned:
        data = json.loads(manifest.read_text())
        data["artifacts"]["prd"].update(size=None, sha256=None)
        manifest = tmp_path / "unpinned.json"
        manifest.write_text(json.dumps(data))
    monkeypatch.setattr(shutil, "disk_usage", lambda path: Usage(10**9, 10**9 - 100, 100))
    with (
        MirrorServer(release.mirror) as server,
        pytest.raises(FetchError, match=r"prd: no disk space: .* 0\.0 MB free"),
    ):
        fetch_icae(tmp_path / "root", mirror=server.url, manifest=manifest, only="prd", log=lambda line: None)
    # pinned: refused before any request; unpinned: refused on the answer's Content-Length, before the body
    assert len(server.requests) == (0 if pinned else 1)
    assert not any((tmp_path / "root" / DOWNLOADS).glob("*.part"))
    assert not (tmp_path / "root" / "repo_alias.json").exists()


def test_a_second_fetch_on_the_same_root_is_refused_while_one_runs(release, tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    with (root / ".icae-fetch.lock").open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(FetchError, match="another `icae-env icae fetch` is running"):
            _fetch(root, release, release.mirror.as_uri())
    assert not (root / STATE_FILE).exists()


def test_a_changed_artifact_replaces_the_installed_tree_and_keeps_the_others(own_release, tmp_path):
    root = tmp_path / "root"
    _fetch(root, own_release, own_release.mirror.as_uri())
    source = tmp_path / "changed"
    shutil.copytree(own_release.source, source)
    (source / "fuzzy_prds" / ALIASES[0] / "start.md").write_text("## Product Requirement Document\n\nnew text\n")
    pack(source, ENTRIES["prd"], own_release.artifact("prd"))
    manifest = json.loads(own_release.manifest.read_text())
    manifest["artifacts"]["prd"] = pin({"prd": own_release.artifact("prd")})["artifacts"]["prd"]
    own_release.manifest.write_text(json.dumps(manifest))
    report = _fetch(root, own_release, own_release.mirror.as_uri())
    assert report.installed == ["prd"] and report.skipped == EVERYTHING[1:] and report.complete
    assert load_icae_bench(root, ALIASES[0]).levels["L1"].prd.endswith("new text\n")
    assert (root / MARKER).is_file() and not list(root.glob(".icae-staging*"))


def test_a_missing_lz4_wheel_names_the_extra_before_any_download(release, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "lz4", None)  # what an environment without the wheel sees
    with MirrorServer(release.mirror) as server, pytest.raises(DependencyNotInstalled, match=r"icae-env\[data\]"):
        _fetch(tmp_path / "root", release, server.url, only="golden")
    assert server.requests == []


def test_a_bad_mirror_url_is_one_clear_line(tmp_path, capsys):
    line = _one_error_line(capsys, ["icae", "fetch", "--root", str(tmp_path), "--mirror", "ftp://example.org"])
    assert "--mirror must be an http://, https:// or file:///absolute/path URL, got 'ftp://example.org'" in line


def test_fetched_release_is_certified_and_only_its_certified_tasks_run(release, tmp_path):
    """The real path end to end: fetch from a mirror, certify every task, run the certified ones."""
    root = tmp_path / "root"
    with MirrorServer(release.mirror) as server:
        assert (
            main(["icae", "fetch", "--root", str(root), "--mirror", server.url, "--manifest", str(release.manifest)])
            == 0
        )
    broken = root / "realcode_repos" / load_icae_bench(root, ALIASES[1]).golden_dir.name / "rcb_tests" / "test.sh"
    broken.write_text("exit 0\n")  # writes no output: every case of that task fails
    assert main(["icae", "certify", str(root), "--quiet"]) == 1
    statuses = {a: json.loads((root / ".certify" / f"{a}.json").read_text()) for a in ALIASES}
    assert [statuses[a]["status"] for a in ALIASES] == ["ok", "golden-fails", "ok"]
    assert statuses[ALIASES[1]]["failing_cases"][0]["reason"] == "missing_output"
    out = tmp_path / "runs"
    args = ["run", "--agent", "oracle", "--tasks", f"icae:{root}", "--certified", "--out", str(out), "--quiet"]
    assert main(args) == 0
    ran = {json.loads(line)["task"] for line in (out / "results.jsonl").read_text().splitlines()}
    assert ran == {ALIASES[0], ALIASES[2]}
