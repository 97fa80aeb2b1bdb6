"""The guide's shell-block parser: fences, continuations, command shapes, robustness."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from validator.guide.commands import find_fences, parse_guide

BLOCK = """\
## Serve

```bash
export VLLM_LOGGING_LEVEL=DEBUG
CUDA_VISIBLE_DEVICES=0,1 vllm serve org/model \\
  --tensor-parallel-size 2 \\
  --speculative-config '{"method": "mtp",
     "num_speculative_tokens": 1}' \\
  --max-model-len <n_tokens>   # any size
```

```bash
vllm bench serve --model org/model --num-prompts 8
curl http://localhost:8000/v1/models
```

```python
import vllm  # vllm serve org/other
```
"""


def test_vllm_serve_with_env_prefix_export_and_multiline_json() -> None:
    found = parse_guide(BLOCK)
    assert len(found.commands) == 1
    cmd = found.commands[0]
    assert cmd.kind == "vllm serve" and cmd.model == "org/model" and cmd.model_line == 4
    assert cmd.args[:2] == ("--tensor-parallel-size", "2")
    assert cmd.args[3] == '{"method": "mtp",\n     "num_speculative_tokens": 1}'
    assert cmd.arg_lines[2] == 6  # the flag's own line
    assert cmd.args[-2:] == ("--max-model-len", "${n_tokens}")  # a placeholder, not `<`
    assert ("VLLM_LOGGING_LEVEL", "DEBUG", 3) in cmd.env
    assert ("CUDA_VISIBLE_DEVICES", "0,1", 4) in cmd.env
    assert cmd.section == "Serve"
    assert found.issues == []


def test_bench_curl_and_python_are_not_serve_commands() -> None:
    text = "```bash\nvllm bench serve --model a/b\ncurl -d '{}' http://x\n```\n" \
           "```python\nvllm serve a/b\n```\n```text\nvllm serve a/b --bad\n```\n"
    assert parse_guide(text).commands == []


def test_docker_run_skips_docker_options_and_finds_model() -> None:
    text = """```bash
docker run --gpus all -p 8000:8000 --ipc=host -e HF_TOKEN=$HF_TOKEN \\
  -v ~/.cache/huggingface:/root/.cache/huggingface --name srv \\
  vllm/vllm-openai:v0.20.0 org/model --max-model-len 4096
```"""
    (cmd,) = parse_guide(text).commands
    assert cmd.kind == "docker" and cmd.image == "vllm/vllm-openai:v0.20.0"
    assert cmd.model == "org/model" and cmd.args == ("--max-model-len", "4096")
    assert ("HF_TOKEN", "$HF_TOKEN", 1) in cmd.env


def test_docker_model_flag_entrypoint_and_api_server() -> None:
    text = """```bash
docker run --rm vllm/vllm-openai:latest --model org/m --port 8001
docker run --entrypoint vllm quay.io/x/vllm:tag serve org/n -tp 2
docker run --rm lmcache/server:latest --port 65432
python3 -m vllm.entrypoints.openai.api_server --model org/o --dtype half
```"""
    cmds = parse_guide(text).commands
    assert [(c.kind, c.model, c.args) for c in cmds] == [
        ("docker", "org/m", ("--port", "8001")),
        ("docker", "org/n", ("-tp", "2")),
        ("api_server", "org/o", ("--dtype", "half")),
    ]


def test_backslash_followed_by_blanks_is_reported() -> None:
    text = "```bash\nvllm serve a/b \\  \n  --max-model-len 4\n```"
    found = parse_guide(text)
    assert [(i.kind, i.line) for i in found.issues] == [("trailing_blank", 1)]
    assert found.commands[0].args == ("--max-model-len", "4")


def test_flag_line_after_a_finished_command_is_reported() -> None:
    text = "```bash\nvllm serve a/b \\\n  --port 1\n  --max-model-len 4\n\n--not-after-blank\n```"
    found = parse_guide(text)
    assert [(i.kind, i.line) for i in found.issues] == [("lost_backslash", 3)]
    assert found.commands[0].args == ("--port", "1", "--max-model-len", "4")


def test_console_prompts_and_unterminated_fence() -> None:
    text = "```console\n$ vllm serve a/b --port 1\n"
    (cmd,) = parse_guide(text).commands
    assert cmd.model == "a/b" and cmd.args == ("--port", "1")
    assert find_fences("```bash\n```\n~~~\nx\n~~~")[1].lines == ("x",)


def test_shell_operators_end_the_command() -> None:
    text = "```bash\nnohup vllm serve a/b --port 1 > log.txt 2>&1 &\n```"
    (cmd,) = parse_guide(text).commands
    assert cmd.args == ("--port", "1")


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_parser_never_raises_on_random_text(text: str) -> None:
    parse_guide(text)
    parse_guide("```bash\n" + text + "\n```")


SHELLISH = st.lists(st.sampled_from([
    "vllm", "serve", "docker", "run", "-e", "--gpus", "all", "\\", "\\ ", "\n", "'", '"',
    "{", "}", "--max-model-len", "4", "|", "&&", "#", "<x>", "<<", "$", "`", "=", "-",
    "python3", "-m", "vllm.entrypoints.openai.api_server", "--model", " ", "```", "export",
    "A=1", "--entrypoint", "vllm/vllm-openai", "org/m",
]), max_size=60).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(SHELLISH)
def test_parser_never_raises_on_shell_like_text(text: str) -> None:
    found = parse_guide("```bash\n" + text + "\n```")
    for cmd in found.commands:
        assert len(cmd.args) == len(cmd.arg_lines)
