"""ICAE's exact comparison rule, as a table."""

import pytest

from icae_env.scoring import collect_outputs, compare_case_file, decode_output
from icae_env.tasks.models import CaseFile, TestCase


def _file(*expected):
    return CaseFile(stem="f", cases=tuple(TestCase(input=i, expected_output=e) for i, e in enumerate(expected)))


@pytest.mark.parametrize(
    ("expected", "files", "verdict"),
    [
        pytest.param(("a\n", "b\n"), {0: b"a\n", 1: b"b\n"}, [True, True], id="zero-based"),
        pytest.param(("a\n", "b\n"), {1: b"a\n", 2: b"b\n"}, [True, True], id="one-based"),
        pytest.param(("a\n", "b\n"), {1: b"b\n"}, [False, False], id="missing-first-shifts-base"),
        pytest.param(("a\n", "b\n"), {0: b"a\n"}, [True, False], id="missing-file-fails"),
        pytest.param(("a\n",), {}, [False], id="no-files"),
        pytest.param(("a\nb\n",), {0: b"a\r\nb\r\n"}, [True], id="crlf-equals-lf"),
        pytest.param(("a\nb\n",), {0: b"a\rb\r"}, [True], id="cr-equals-lf"),
        pytest.param(("a\n",), {0: b"a"}, [False], id="missing-trailing-newline"),
        pytest.param(("a",), {0: b"a\n"}, [False], id="extra-trailing-newline"),
        pytest.param((3,), {0: b"3"}, [True], id="int-expected-as-json"),
        pytest.param(({"k": [1, True]},), {0: b'{"k": [1, true]}'}, [True], id="object-expected-as-json-dumps"),
        pytest.param(({"k": 1},), {0: b'{"k":1}'}, [False], id="json-spacing-matters"),
        pytest.param((None,), {0: b"null"}, [True], id="null-expected"),
        pytest.param(("\ufffd\n",), {0: b"\xff\n"}, [True], id="invalid-utf8-replaced"),
        pytest.param(("",), {0: b""}, [True], id="empty-output"),
    ],
)
def test_comparison_table(expected, files, verdict):
    assert [passed for passed, _ in compare_case_file(_file(*expected), files)] == verdict


@pytest.mark.parametrize("names", [["f@0.txt", "f@1.txt"], ["f@000.txt", "f@001.txt"], ["f@00.txt", "f@1.txt"]])
def test_zero_padding_is_accepted(tmp_path, names):
    for name, text in zip(names, ["a\n", "b\n"], strict=True):
        (tmp_path / name).write_text(text)
    (tmp_path / "f@x.txt").write_text("ignored")
    (tmp_path / "notes.txt").write_text("ignored")
    outputs = collect_outputs(tmp_path)
    assert sorted(outputs["f"]) == [0, 1]
    assert [p for p, _ in compare_case_file(_file("a\n", "b\n"), outputs["f"])] == [True, True]


def test_stem_with_at_sign_and_symlinks(tmp_path):
    (tmp_path / "a@b@2.txt").write_text("x")
    (tmp_path / "g@0.txt").symlink_to("/etc/hostname")
    outputs = collect_outputs(tmp_path)
    assert outputs == {"a@b": {2: b"x"}}
    assert collect_outputs(tmp_path / "absent") == {}


def test_decode_output():
    assert decode_output(b"x\r\ny\rz\n") == "x\ny\nz\n"
