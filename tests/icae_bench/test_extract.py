"""Verification and extraction: corrupted artifacts, refused tar members, failed layout checks, killed extractions."""

import json
import os
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest
from icae_release import ENTRIES, MirrorServer, docker_image_tar, pack, pin

from icae_env.errors import FetchError
from icae_env.icae_bench.download import DownloadPolicy
from icae_env.icae_bench.fetch import DOWNLOADS, STATE_FILE, fetch_icae

ROOT_ENTRIES = ("repo_alias.json", "user_agent", "fuzzy_prds", "rcb_tests_repos", "realcode_repos", "images")


def _fetch(root: Path, release, **options) -> object:
    policy = DownloadPolicy(retries=0)
    return fetch_icae(root, mirror=release.mirror.as_uri(), manifest=release.manifest, policy=policy, **options)


def _untouched(root: Path) -> None:
    """Nothing was installed: no release entry, no staging directory, no kept download, no record."""
    assert not any((root / entry).exists() for entry in ROOT_ENTRIES)
    assert not list(root.glob(".icae-staging*")) and not (root / DOWNLOADS).exists()
    assert not (root / STATE_FILE).exists()


def _replace(release, name: str, path: Path) -> None:
    """Serve ``path`` as artifact ``name`` and pin it in the release's manifest."""
    path.replace(release.artifact(name))
    manifest = json.loads(release.manifest.read_text())
    manifest["artifacts"][name] = pin({name: release.artifact(name)})["artifacts"][name]
    release.manifest.write_text(json.dumps(manifest))


def test_a_corrupted_artifact_is_detected_deleted_and_never_unpacked(own_release, tmp_path):
    data = bytearray(own_release.artifact("prd").read_bytes())
    data[len(data) // 2] ^= 0xFF
    own_release.artifact("prd").write_bytes(bytes(data))
    root = tmp_path / "root"
    with MirrorServer(own_release.mirror) as server, pytest.raises(FetchError) as caught:
        fetch_icae(root, mirror=server.url, manifest=own_release.manifest, log=lambda line: None)
    assert str(caught.value).startswith("prd: checksum mismatch for icae_prd_bundle.tar.gz: expected sha256 ")
    assert "the file was deleted and nothing was unpacked" in str(caught.value)
    _untouched(root)


def test_an_unreadable_archive_with_an_unpinned_entry_is_deleted(own_release, tmp_path):
    own_release.artifact("tests").write_bytes(b"\x1f\x8b" + os.urandom(4000))
    manifest = json.loads(own_release.manifest.read_text())
    manifest["artifacts"]["tests"].update(size=None, sha256=None)
    own_release.manifest.write_text(json.dumps(manifest))
    root = tmp_path / "root"
    with pytest.raises(FetchError, match=r"^tests: rcb_tests_repos\.tar\.gz is not a readable archive"):
        _fetch(root, own_release, only="tests", log=lambda line: None)
    _untouched(root)


def _evil_tests_bundle(release, tmp_path: Path, name: str, **attrs) -> Path:
    out = tmp_path / "evil" / "rcb_tests_repos.tar.gz"
    return pack(release.source, ENTRIES["tests"], out, extra=((name, b"owned\n", attrs),))


@pytest.mark.parametrize(
    ("member", "attrs", "reason"),
    [
        ("../../evil.txt", {}, "a path outside the data root"),
        ("rcb_tests_repos/../../evil.txt", {}, "a path outside the data root"),
        ("/tmp/icae-evil.txt", {}, "an absolute path"),
        (
            "rcb_tests_repos/out",
            {"type": tarfile.SYMTYPE, "linkname": "../../.."},
            "a link pointing outside the data root",
        ),
        ("rcb_tests_repos/etc", {"type": tarfile.SYMTYPE, "linkname": "/etc"}, "an absolute link"),
        (
            "rcb_tests_repos/hard",
            {"type": tarfile.LNKTYPE, "linkname": "../../x"},
            "a link pointing outside the data root",
        ),
        ("rcb_tests_repos/null", {"type": tarfile.CHRTYPE, "devmajor": 1, "devminor": 3}, "a device or special file"),
    ],
)
def test_a_member_escaping_the_root_is_refused_by_name(own_release, tmp_path, member, attrs, reason):
    _replace(own_release, "tests", _evil_tests_bundle(own_release, tmp_path, member, **attrs))
    root = tmp_path / "data" / "root"
    with pytest.raises(FetchError) as caught:
        _fetch(root, own_release, only="tests", log=lambda line: None)
    assert str(caught.value) == f"tests: refused tar member {member!r} in rcb_tests_repos.tar.gz: {reason}"
    assert not (tmp_path / "evil.txt").exists() and not (tmp_path / "data" / "evil.txt").exists()
    assert not Path("/tmp/icae-evil.txt").exists()
    _untouched(root)


def test_a_symlink_out_of_the_tree_cannot_carry_a_later_write(own_release, tmp_path):
    """The classic two-step escape: a link to the outside, then a file written through it."""
    out = tmp_path / "evil" / "rcb_tests_repos.tar.gz"
    link = ("rcb_tests_repos/up", b"", {"type": tarfile.SYMTYPE, "linkname": "../.."})
    through = ("rcb_tests_repos/up/evil.txt", b"owned\n", {})
    _replace(own_release, "tests", pack(own_release.source, ENTRIES["tests"], out, extra=(link, through)))
    with pytest.raises(FetchError, match=r"refused tar member 'rcb_tests_repos/up'"):
        _fetch(tmp_path / "data" / "root", own_release, only="tests", log=lambda line: None)
    assert not list(tmp_path.rglob("evil.txt"))


def test_a_failed_layout_check_never_promotes_the_staging_directory(own_release, tmp_path):
    source = tmp_path / "broken"
    subprocess.run(["cp", "-a", str(own_release.source), str(source)], check=True)
    (source / "fuzzy_prds_easy" / "realcode@002" / "start.md").unlink()
    _replace(own_release, "prd", pack(source, ENTRIES["prd"], tmp_path / "out" / "icae_prd_bundle.tar.gz"))
    root = tmp_path / "root"
    with pytest.raises(FetchError) as caught:
        _fetch(root, own_release, only="prd", log=lambda line: None)
    assert str(caught.value) == (
        "prd: layout check failed, nothing was installed: 3 aliases (the full release has 480), "
        "1 problem(s): realcode@002: no fuzzy_prds_easy/realcode@002/start.md"
    )
    _untouched(root)


def test_a_tests_bundle_missing_a_tier_of_an_installed_alias_is_refused(own_release, tmp_path):
    root = tmp_path / "root"
    _fetch(root, own_release, only="prd", log=lambda line: None)
    source = tmp_path / "broken"
    subprocess.run(["cp", "-a", str(own_release.source), str(source)], check=True)
    subprocess.run(
        ["rm", "-r", str(source / "rcb_tests_repos" / "realcode-003" / "rcb_tests" / "test_cases")], check=True
    )
    _replace(own_release, "tests", pack(source, ENTRIES["tests"], tmp_path / "out" / "rcb_tests_repos.tar.gz"))
    with pytest.raises(FetchError, match=r"realcode@003: no rcb_tests_repos/realcode-003/rcb_tests/test_cases/$"):
        _fetch(root, own_release, only="tests", log=lambda line: None)
    assert not (root / "rcb_tests_repos").exists() and (root / "repo_alias.json").is_file()


def test_an_image_that_is_not_a_docker_archive_is_refused(own_release, tmp_path):
    bad = tmp_path / "out" / "kotlin_1.9.25.tar"
    pack(own_release.source, ("repo_alias.json",), bad)
    _replace(own_release, "kotlin-image", bad)
    with pytest.raises(FetchError, match=r"^kotlin-image: kotlin_1\.9\.25\.tar is not a docker save archive"):
        _fetch(tmp_path / "root", own_release, only="kotlin-image", log=lambda line: None)
    assert not (tmp_path / "root" / "images").exists()
    docker_image_tar(bad)  # the right shape installs
    _replace(own_release, "kotlin-image", bad)
    assert _fetch(tmp_path / "root", own_release, only="kotlin-image", log=lambda line: None).installed


def _slow_prd_bundle(release, tmp_path: Path) -> Path:
    """The PRD bundle with a large, highly compressible member first, so that extraction takes a while."""
    out = tmp_path / "out" / "icae_prd_bundle.tar.gz"
    out.parent.mkdir(parents=True)
    with tarfile.open(out, "w:gz", compresslevel=1) as tar:
        padding = tarfile.TarInfo("user_agent/padding.bin")
        padding.size = 128 << 20
        with open("/dev/zero", "rb") as zeros:
            tar.addfile(padding, zeros)
        for entry in ENTRIES["prd"]:
            tar.add(release.source / entry, arcname=entry)
    return out


@pytest.mark.slow
def test_a_killed_extraction_never_promotes_and_the_next_run_completes(own_release, tmp_path):
    _replace(own_release, "prd", _slow_prd_bundle(own_release, tmp_path))
    root = tmp_path / "root"
    argv = [sys.executable, "-m", "icae_env.cli", "icae", "fetch", "--root", str(root), "--only", "prd"]
    argv += ["--mirror", own_release.mirror.as_uri(), "--manifest", str(own_release.manifest)]
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    staged = root / ".icae-staging-prd" / "user_agent" / "padding.bin"
    deadline = time.monotonic() + 300
    while not staged.exists() and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    os.kill(child.pid, signal.SIGKILL)
    assert child.wait() == -signal.SIGKILL, "the fetch finished before it could be killed"
    assert staged.exists() and not (root / "repo_alias.json").exists() and not (root / "user_agent").exists()
    assert not (root / STATE_FILE).exists()
    lines: list[str] = []
    report = _fetch(root, own_release, only="prd", log=lines.append)
    assert report.installed == ["prd"] and any("reusing the finished download" in line for line in lines)
    assert not list(root.glob(".icae-staging*")) and (root / "user_agent" / "padding.bin").stat().st_size == 128 << 20
