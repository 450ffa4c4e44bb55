"""`icae-env tasks generate` and `icae fetch`: malformed arguments are one line naming the argument."""

from __future__ import annotations

import pytest

from icae_env.cli import main
from icae_env.families import get_family
from icae_env.registration import FAMILIES


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["tasks", "generate", "ledger-report", "--count", "-1"], "--count: expected an integer >= 1, got '-1'"),
        (["tasks", "generate", "ledger-report", "--count", "0"], "--count: expected an integer >= 1, got '0'"),
        (["tasks", "generate", "ledger-report", "--start", "x"], "--start: expected an integer >= 0, got 'x'"),
        (["tasks", "generate", "ledger-report", "--knob", "features"], "--knob: expected KEY=VALUE, got 'features'"),
        (["icae", "fetch", "--root", "r", "--retries", "-2"], "--retries: expected an integer >= 0, got '-2'"),
    ],
)
def test_a_malformed_argument_is_one_line_naming_it(argv, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--out", str(tmp_path)] if argv[0] == "tasks" else argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # nothing written


def test_an_unknown_family_or_knob_names_the_choices(tmp_path, capsys):
    assert main(["tasks", "generate", "nope", "--out", str(tmp_path)]) != 0
    assert f"unknown task family 'nope'; expected one of {sorted(FAMILIES)}" in capsys.readouterr().err
    assert main(["tasks", "generate", "ledger-report", "--knob", "features=99", "--out", str(tmp_path)]) != 0
    assert "features must be in 3..5" in capsys.readouterr().err
    held_out = next(name for name in sorted(FAMILIES) if get_family(name).held_out)
    assert main(["tasks", "generate", held_out, "--split", "train", "--count", "1", "--out", str(tmp_path)]) == 2
    assert f"family {held_out!r} is held out: every task is in the test split" in capsys.readouterr().err
