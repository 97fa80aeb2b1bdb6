"""``action.yml``: its ``run:`` steps executed in bash the way the Actions runner runs a
composite action — expressions substituted, step ``env``, ``GITHUB_OUTPUT`` per step,
``RUNNER_TEMP``, the event payload and step summary — against a clone of the corpus
checked out at a pull request's head. The ``uses:`` step (actions/setup-python) is stood
in for by this interpreter."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import PROJECT, git, github_env, pr_revisions, sarif_errors

pytestmark = [pytest.mark.corpus, pytest.mark.slow]

ACTION = PROJECT / "action.yml"
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def load_action() -> dict[str, Any]:
    action: dict[str, Any] = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    return action


def _outputs(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        key, sep, value = line.partition("=")
        if sep:
            out[key] = value
    return out


class Runner:
    """Runs the composite action's steps as the Actions runner would (bash steps only)."""

    def __init__(self, action_path: Path, workspace: Path, env: dict[str, str],
                 inputs: dict[str, str], temp: Path) -> None:
        self.action = load_action()
        defaults = {k: str(v.get("default", "")) for k, v in self.action["inputs"].items()}
        unknown = set(inputs) - set(defaults)
        assert not unknown, f"not inputs of action.yml: {unknown}"
        self.context = {f"inputs.{k}": v for k, v in {**defaults, **inputs}.items()}
        self.context |= {"github.action_path": str(action_path),
                         "github.workspace": str(workspace),
                         "github.action_repository": "", "github.action_ref": ""}
        self.env = {**env, "GITHUB_ACTION_PATH": str(action_path), "RUNNER_TEMP": str(temp),
                    "GITHUB_ENV": str(temp / "github_env")}
        self.temp = temp
        self.logs: list[str] = []

    def sub(self, text: str) -> str:
        def one(m: re.Match[str]) -> str:
            expr = m.group(1)
            assert expr in self.context, f"unhandled expression in action.yml: {expr}"
            return self.context[expr]

        return EXPR.sub(one, text)

    def run(self) -> int:
        """Every step in order; the exit status of the first failing step (else 0)."""
        for n, step in enumerate(self.action["runs"]["steps"]):
            sid = step.get("id", f"step{n}")
            if "uses" in step:
                assert step["uses"].startswith("actions/setup-python@")
                assert self.sub(step["with"]["python-version"]) == \
                    self.context["inputs.python-version"]
                self.context[f"steps.{sid}.outputs.python-path"] = sys.executable
                continue
            assert step["shell"] == "bash"
            output = self.temp / f"output-{sid}"
            output.write_text("")
            env = {**os.environ, **self.env, "GITHUB_OUTPUT": str(output)}
            env |= {k: self.sub(str(v)) for k, v in step.get("env", {}).items()}
            script = self.temp / f"{sid}.sh"
            script.write_text(self.sub(step["run"]))
            cwd = self.sub(step.get("working-directory", self.context["github.workspace"]))
            proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail",
                                   str(script)], cwd=cwd, env=env, capture_output=True,
                                  text=True, timeout=600)
            self.logs.append(proc.stdout + proc.stderr)
            for key, value in _outputs(output).items():
                self.context[f"steps.{sid}.outputs.{key}"] = value
            if proc.returncode:
                return proc.returncode
        return 0

    def output(self, name: str) -> str:
        """An output of the action (its ``outputs.<name>.value`` expression)."""
        return self.sub(self.action["outputs"][name]["value"]) if EXPR.search(
            self.action["outputs"][name]["value"]) and all(
            m.group(1) in self.context for m in EXPR.finditer(
                self.action["outputs"][name]["value"])) else ""


def test_action_inputs_never_reach_script_text() -> None:
    """Script injection: ``${{ }}`` only in ``env``/``with``/``working-directory``, never in
    a ``run:`` body; the install step names only the action's own path."""
    action = load_action()
    assert set(action["inputs"]) >= {"paths", "base", "head", "strict", "sarif",
                                     "python-version", "config", "fail-on"}
    assert action["runs"]["using"] == "composite"
    for step in action["runs"]["steps"]:
        if "run" in step:
            assert "${{" not in step["run"], step.get("name")
    install = next(s for s in action["runs"]["steps"] if s.get("id") == "install")
    assert 'pip install --quiet --disable-pip-version-check -e "$RC_ACTION_PATH"' in \
        install["run"]
    assert install["env"]["RC_ACTION_PATH"] == "${{ github.action_path }}"
    assert "workspace" not in json.dumps(install).lower()


@pytest.fixture(scope="module")
def action_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project as the runner checks an action out: ``.../_actions/OWNER/REPO/REF``."""
    dest = tmp_path_factory.mktemp("runner") / "_actions" / "acme" / "recipe-check" / "v9"
    shutil.copytree(PROJECT, dest, ignore=shutil.ignore_patterns(
        ".git", "tests", "*.egg-info", "__pycache__", ".*_cache", "build", "dist", ".venv"))
    return dest


def _workspace(corpus_repo: Path, tmp: Path, head: str) -> Path:
    ws = tmp / "workspace"
    subprocess.run(["git", "clone", "-q", "--shared", str(corpus_repo), str(ws)], check=True)
    git(ws, "checkout", "-q", "--detach", head)
    return ws


def test_action_on_pull_request_616(corpus_repo: Path, tmp_path: Path,
                                    action_copy: Path) -> None:
    base, head = pr_revisions(corpus_repo, 616)
    ws = _workspace(corpus_repo, tmp_path, head)
    env = github_env(tmp_path, ws, base, head, 616)
    temp = tmp_path / "runner_temp"
    temp.mkdir()
    runner = Runner(action_copy, ws, env, {"sarif": "results.sarif"}, temp)
    status = runner.run()
    log = runner.logs[-1]
    assert status == 1, runner.logs  # errors fail the step
    outputs = _outputs(temp / "output-check")
    assert int(outputs["errors"]) > 0 and outputs["sarif"] == "results.sarif"
    assert runner.output("errors") == outputs["errors"]
    # SCHEMA001 at line 80 (and any other finding the head introduces) is new; REF019 and
    # the others are at the merge base
    sarif_log = json.loads((ws / "results.sarif").read_text(encoding="utf-8"))
    assert int(outputs["new"]) == sum(r["baselineState"] == "new"
                                      for r in sarif_log["runs"][0]["results"]) >= 1
    gemma = "models/Google/gemma-4-12B-it.yaml"
    assert f"checked {gemma} because: modified" in log
    # REF019 at line 21 is at the merge base already: logged, not annotated; the
    # SCHEMA001 the pull request introduces is annotated
    assert f"::warning file={gemma},line=21" not in log
    assert f"{gemma}:21:13: warning REF019 (existing at the base) model_id" in log
    assert f"::error file={gemma},line=80,endLine=81,title=SCHEMA001" in log
    # recipe-check ran from the action's venv, installed from the action's copy
    assert (temp / "recipe-check-venv" / "bin" / "recipe-check").is_file()
    sarif = json.loads((ws / "results.sarif").read_text(encoding="utf-8"))
    assert sarif_errors(sarif) == []
    assert sum(r["level"] == "error" for r in sarif["runs"][0]["results"]) == \
        int(outputs["errors"])
    # rule links name the action's repository and ref, taken from its checkout path
    summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
    assert "(https://github.com/acme/recipe-check/blob/v9/docs/rules.md#ref019)" in summary
    assert sarif["runs"][0]["tool"]["driver"]["informationUri"] == \
        "https://github.com/acme/recipe-check"
    # nothing was written into the pull request's checkout but the SARIF asked for
    assert git(ws, "status", "--porcelain") == "?? results.sarif"

    # a pull request with nothing to check passes; strict and paths inputs are accepted
    base12, head12 = pr_revisions(corpus_repo, 12)
    env12 = github_env(tmp_path, ws, base12, head12, 12)
    runner = Runner(action_copy, ws, env12, {"strict": "true", "paths": "models/\nmodels/*"},
                    temp)
    assert runner.run() == 0, runner.logs
    assert _outputs(temp / "output-check") == {"errors": "0", "warnings": "0", "new": "0"}

    # PR 830 has only errors its merge base has: passes by default; fails with fail-on all,
    # from the input or from a configuration file named by the config input
    base830, head830 = pr_revisions(corpus_repo, 830)
    env830 = github_env(tmp_path, ws, base830, head830, 830)
    assert Runner(action_copy, ws, env830, {}, temp).run() == 0
    assert Runner(action_copy, ws, env830, {"fail-on": "all"}, temp).run() == 1
    (tmp_path / "rc.toml").write_text('fail-on = "all"\n', encoding="utf-8")
    config = {"config": str(tmp_path / "rc.toml")}
    assert Runner(action_copy, ws, env830, config, temp).run() == 1
    assert Runner(action_copy, ws, env830, {**config, "fail-on": "new"}, temp).run() == 0
