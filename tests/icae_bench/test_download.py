"""Resumable downloads: a true resume with a Range-capable server, the restart path with one that ignores Range."""

from pathlib import Path

import pytest
from icae_release import PATHS, MirrorServer

from icae_env.errors import FetchError
from icae_env.icae_bench.download import DownloadPolicy
from icae_env.icae_bench.fetch import DOWNLOADS, fetch_icae
from icae_env.icae_bench.load import load_icae_bench

FAST = DownloadPolicy(timeout_s=10, retries=2, backoff_s=0.01)


def _fetch_prd(root: Path, release, url: str, lines: list[str]) -> object:
    return fetch_icae(root, mirror=url, manifest=release.manifest, only="prd", policy=FAST, log=lines.append)


def test_a_cut_transfer_resumes_with_range_and_verifies(release, tmp_path):
    size = release.artifact("prd").stat().st_size
    cut = size // 2
    lines: list[str] = []
    with MirrorServer(release.mirror, ranges=True, cut_after=cut) as server:
        report = _fetch_prd(tmp_path / "root", release, server.url, lines)
    assert [r["range"] for r in server.requests] == [None, f"bytes={cut}-"]
    assert any("connection lost after" in line and "retrying" in line for line in lines)
    assert report.installed == ["prd"] and not any("not pinned" in line for line in lines)
    assert load_icae_bench(tmp_path / "root", "realcode@001").levels["L1"].prd


def test_a_part_file_left_by_an_earlier_run_is_resumed(release, tmp_path):
    data = release.artifact("prd").read_bytes()
    part = tmp_path / "root" / DOWNLOADS / "icae_prd_bundle.tar.gz.part"
    part.parent.mkdir(parents=True)
    part.write_bytes(data[:1000])
    with MirrorServer(release.mirror, ranges=True) as server:
        report = _fetch_prd(tmp_path / "root", release, server.url, [])
    assert server.requests == [{"path": "/" + PATHS["prd"], "range": "bytes=1000-"}]
    assert report.installed == ["prd"] and not part.exists()


def test_a_server_that_ignores_range_restarts_the_file_from_zero(release, tmp_path):
    part = tmp_path / "root" / DOWNLOADS / "icae_prd_bundle.tar.gz.part"
    part.parent.mkdir(parents=True)
    part.write_bytes(b"stale bytes of another file")
    lines: list[str] = []
    with MirrorServer(release.mirror, ranges=False) as server:
        report = _fetch_prd(tmp_path / "root", release, server.url, lines)
    assert server.requests == [{"path": "/" + PATHS["prd"], "range": f"bytes={len(b'stale bytes of another file')}-"}]
    assert "prd: the server ignored the Range request; restarting from zero" in lines
    assert report.installed == ["prd"]


def test_a_cut_transfer_on_a_server_without_range_restarts_and_verifies(release, tmp_path):
    lines: list[str] = []
    with MirrorServer(release.mirror, ranges=False, cut_after=500) as server:
        report = _fetch_prd(tmp_path / "root", release, server.url, lines)
    assert [r["range"] for r in server.requests] == [None, "bytes=500-"]
    assert report.installed == ["prd"] and any("restarting from zero" in line for line in lines)


def test_a_transfer_cut_with_no_retry_left_gives_up_with_one_line(release, tmp_path):
    policy = DownloadPolicy(retries=0)
    with MirrorServer(release.mirror, ranges=True, cut_after=0) as server:
        with pytest.raises(FetchError, match=r"^prd: connection lost after 0\.0 MB of .* \(gave up after 1 attempt"):
            fetch_icae(tmp_path / "root", mirror=server.url, manifest=release.manifest, only="prd", policy=policy)
    assert not (tmp_path / "root" / "repo_alias.json").exists()


def test_a_busy_server_is_retried_with_back_off(release, tmp_path):
    lines: list[str] = []
    with MirrorServer(release.mirror, fail_first=2) as server:
        report = _fetch_prd(tmp_path / "root", release, server.url, lines)
    assert len(server.requests) == 3 and report.installed == ["prd"]
    assert [line for line in lines if "retrying" in line] == [
        f"prd: HTTP 503 Busy from {server.url.removeprefix('http://')}; retrying in 0.01 s",
        f"prd: HTTP 503 Busy from {server.url.removeprefix('http://')}; retrying in 0.02 s",
    ]
