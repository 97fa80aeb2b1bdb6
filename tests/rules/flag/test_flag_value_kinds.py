"""FLAG006 for a value the option's argparse ``type`` refuses (``--max-model-len abc``,
``--gpu-memory-utilization 1.5e``), judged by the kind the release's own type callable
has (vendored ``types/<version>.json``). Values the shell or a reader fills in are not
judged (a bare ``$NAME`` the site leaves unquoted, a ``<placeholder>``), nor is any value
of a release without a kinds file; a value the site quotes (``'${SEED:-0}'``) is the text
vLLM reads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.conftest import check_tree, line_of
from tests.tiny_recipe import PATH, RECIPE, write_tiny
from validator.findings import Finding
from validator.paths import SNAPSHOTS_DIR

#: A release with a vendored kinds file.
TYPED = "0.33.0"
ARGS = ('["--max-model-len", "abc", "--gpu-memory-utilization", "1.5e", '
        '"--max-num-batched-tokens", "8k", "--max-num-seqs", "$MAX_SEQS", '
        '"--seed", "${SEED:-0}", "--tensor-parallel-size", "<tp>", "--block-size", "16"]')


def flag006(root: Path, vendored: Path | None = None) -> list[Finding]:
    """The FLAG006 findings of the tiny recipe, its rendered commands checked."""
    return [f for f in check_tree(root, PATH, rendered=True, vendored_dir=vendored)
            if f.rule == "FLAG006"]


def test_values_the_type_refuses_are_flag006_at_the_value(corpus_copy: Path) -> None:
    text = write_tiny(corpus_copy, ARGS, RECIPE.replace('"0.12.0"', f'"{TYPED}"'))
    found = flag006(corpus_copy)
    # `${SEED:-0}` is no expansion in the command: the site quotes it, vLLM reads it as is
    assert [f.message.split("`: ")[0] + "`" for f in found] == [
        "`--max-model-len abc`", "`--gpu-memory-utilization 1.5e`", "`--seed ${SEED:-0}`"], found
    line = line_of(text, "--max-model-len")
    assert {f.line for f in found} == {line}
    assert found[0].column == text.splitlines()[line - 1].index('"abc"') + 1
    assert "is not an integer (such as 8192, 8k or 32K), or auto, so vLLM " \
        f"{TYPED} refuses it" in found[0].message
    assert "is not a number" in found[1].message


def test_a_guide_command_value_the_type_refuses_is_guide006(corpus_copy: Path) -> None:
    guide = "  ```bash\n  vllm serve org/Tiny-1B --max-model-len 32kk --max-num-seqs $N\n  ```\n"
    write_tiny(corpus_copy, '["--max-model-len", "8192"]', RECIPE.replace(
        '"0.12.0"', f'"{TYPED}"').replace("  Serve it.\n", guide))
    found = [f.message for f in check_tree(corpus_copy, PATH, rendered=True)
             if f.rule == "GUIDE006"]
    assert len(found) == 1 and found[0].startswith("`--max-model-len 32kk`"), found


def test_a_release_without_a_kinds_file_judges_no_value(corpus_copy: Path,
                                                        tmp_path: Path) -> None:
    vendored = tmp_path / "vendored"
    shutil.copytree(SNAPSHOTS_DIR, vendored)
    types = vendored / "vllm-cli" / "types"
    pins = json.loads((types / "index.json").read_text())
    del pins[TYPED]
    (types / "index.json").write_text(json.dumps(pins))
    (types / f"{TYPED}.json").unlink()
    write_tiny(corpus_copy, ARGS, RECIPE.replace('"0.12.0"', f'"{TYPED}"'))
    assert flag006(corpus_copy, vendored) == []


def test_a_value_only_a_later_release_takes_names_that_release(corpus_copy: Path) -> None:
    # vLLM's --max-model-len takes `auto` from 0.14.0 (human_readable_int_or_auto)
    write_tiny(corpus_copy, '["--max-model-len", "auto"]',
               RECIPE.replace('"0.12.0"', '"0.13.0"'))
    (found,) = flag006(corpus_copy)
    assert found.message.startswith("`--max-model-len auto`: `auto` is accepted only from "
                                    "vLLM 0.14.0"), found.message
    assert found.hint is not None and found.hint.startswith(
        "raise min_vllm_version to 0.14.0"), found.hint
