"""The input sweep (bench/sweep_inputs.py, `make sweep` runs all of it) in its reduced form: a few commands on every
fixture and hostile file, checked for documented exit codes, one-line errors and untouched inputs."""

from __future__ import annotations

import importlib.util
import sys

from .conftest import ROOT


def test_quick_sweep(capsys):
    spec = importlib.util.spec_from_file_location("sweep_inputs", ROOT / "bench" / "sweep_inputs.py")
    sweep = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = sweep  # dataclasses look their module up there
    spec.loader.exec_module(sweep)
    code = sweep.main(["--quick"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "sweep: ok" in out
