"""One base error: every stage's input error derives from RecipeCheckError, and the command
line converts it in one place (message on stderr, the error's exit code)."""

from __future__ import annotations

from pathlib import Path

import pytest

from validator.cli import main
from validator.config import ConfigError
from validator.errors import RecipeCheckError, UsageError
from validator.evidence.record import RecordError
from validator.evidence.site.build import SiteError
from validator.history.gitdata import GitError
from validator.pr.event import EventError
from validator.pr.run import PrError
from validator.releases import ReleaseListError
from validator.render.api_inputs import ApiBuildError
from validator.render.api_out import ApiOutputError
from validator.source.spec import SpecError
from validator.source.tree import SourceError
from validator.source.verify import VerificationError
from validator.vllm_cli.fetch import FetchError
from validator.vllm_cli.registry import RegistryError
from validator.vllm_cli.release_sources import ExtractionError

ERRORS: list[type[Exception]] = [
    ApiBuildError, ApiOutputError, ConfigError, EventError, ExtractionError, FetchError,
    GitError, PrError, RecordError, RegistryError, ReleaseListError, SiteError, SourceError,
    SpecError, UsageError, VerificationError,
]


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: e.__name__)
def test_every_stage_error_is_a_recipe_check_error(error: type[Exception]) -> None:
    assert issubclass(error, RecipeCheckError)
    assert error.exit_code == 2


def test_runtime_errors_stay_runtime_errors() -> None:
    # callers that caught RuntimeError for a failed download or extraction still do
    assert issubclass(FetchError, RuntimeError)
    assert issubclass(ExtractionError, RuntimeError)


def test_an_instance_can_carry_its_own_exit_code() -> None:
    assert RecipeCheckError("x").exit_code == 2
    assert RecipeCheckError("x", exit_code=3).exit_code == 3
    assert str(ApiBuildError("models/a/b.yaml", "bad", 4)) == "models/a/b.yaml:4: bad"


def test_the_cli_prints_a_stage_error_without_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "bad.toml"
    config.write_text("[tool.recipe-check]\nselect = 3\n", encoding="utf-8")
    recipe = tmp_path / "r.yaml"
    recipe.write_text("a: 1\n", encoding="utf-8")
    code = main(["check", "--config", str(config), str(recipe)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(f"recipe-check: {config}")
    assert "Traceback" not in err
