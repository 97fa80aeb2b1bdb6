"""Hostile and broken input: each case ends in a clear finding or message naming the file,
never a traceback, a crash, a hang or unbounded memory (issue 8)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from validator.cli import main
from validator.load import DEFAULT_MAX_DEPTH, DEFAULT_MAX_NODES, load_yaml
from validator.load.builder import Builder

# A small recipes tree of our own: the CLI needs taxonomy.yaml and strategies/ to find
# the root. Its own findings (if any) are not what these tests look at.
TAXONOMY = "hardware_profiles: {}\n"
STRATEGY = "name: single_node_tp\ndescription: one node, tensor parallel\n"
GOOD = "model:\n  model_id: org/name\nmeta:\n  title: A test recipe\n"


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "recipes"
    (root / "strategies").mkdir(parents=True)
    (root / "models" / "org").mkdir(parents=True)
    (root / "taxonomy.yaml").write_text(TAXONOMY)
    (root / "strategies" / "single_node_tp.yaml").write_text(STRATEGY)
    return root


def run_json(args: list[str], capsys: pytest.CaptureFixture[str]
             ) -> tuple[int, dict[str, Any], str]:
    code = main([*args, "--format", "json"])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if out.out.strip() else {}), out.err


def findings_of(report: dict[str, Any], path: str) -> list[tuple[str, int, int]]:
    for doc in report["documents"]:
        if doc["path"] == path:
            return [(f["rule"], f["line"], f["column"]) for f in doc["findings"]]
    raise AssertionError(f"{path} not in report: {[d['path'] for d in report['documents']]}")


CASES: dict[str, tuple[bytes, str]] = {
    "binary.yaml": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "YAML006"),
    "latin1.yaml": ("model:\n  model_id: caf\xe9\n".encode("latin-1"), "YAML006"),
    "utf16.yaml": ("model: x\n".encode("utf-16"), "YAML006"),
    "empty.yaml": (b"", "YAML005"),
    "comments.yaml": (b"# nothing here\n", "YAML005"),
    "list.yaml": (b"- model\n- meta\n", "YAML005"),
    "scalar.yaml": (b"just some words\n", "YAML005"),
    "two-docs.yaml": (GOOD.encode() + b"---\n" + GOOD.encode(), "YAML005"),
    "bad.yaml": (b"model: [unclosed\nmeta: x\n", "YAML001"),
    "tab.yaml": (b"model:\n\tmodel_id: x\n", "YAML001"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_broken_file_is_one_error_finding_naming_the_file(
        name: str, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw, rule = CASES[name]
    (tree / "models" / "org" / name).write_bytes(raw)
    code, report, err = run_json([str(tree / "models" / "org" / name)], capsys)
    assert code == 1, err
    found = findings_of(report, f"models/org/{name}")
    assert [r for r, _, _ in found] == [rule]
    assert "Traceback" not in err


def test_bom_is_tolerated_and_lines_unchanged(tree: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    body = "model:\n  model_id: org/name\n  flag: yes\n"
    (tree / "models" / "org" / "plain.yaml").write_text(body)
    (tree / "models" / "org" / "bom.yaml").write_bytes(b"\xef\xbb\xbf" + body.encode())
    _, plain, _ = run_json([str(tree / "models" / "org" / "plain.yaml")], capsys)
    _, bom, _ = run_json([str(tree / "models" / "org" / "bom.yaml")], capsys)
    a = findings_of(plain, "models/org/plain.yaml")
    b = findings_of(bom, "models/org/bom.yaml")
    assert ("YAML003", 3, 9) in a
    assert a == b


def test_size_limit_default_and_flag(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    big = tree / "models" / "org" / "big.yaml"
    big.write_bytes(b"model:\n  model_id: org/big\n" + b"# padding\n" * 220_000)  # > 2 MiB
    code, report, _ = run_json([str(big)], capsys)
    assert code == 1
    assert findings_of(report, "models/org/big.yaml") == [("YAML007", 1, 1)]
    small = tree / "models" / "org" / "small.yaml"
    small.write_text(GOOD)
    code, report, _ = run_json([str(small), "--max-bytes", "16"], capsys)
    assert ("YAML007", 1, 1) in findings_of(report, "models/org/small.yaml")
    code, report, _ = run_json([str(big), "--max-bytes", str(4 * 1024 * 1024)], capsys)
    assert "YAML007" not in [r for r, _, _ in findings_of(report, "models/org/big.yaml")]


@pytest.mark.parametrize("text", [
    "a: " + "[" * 100_000,                       # unclosed flow sequences
    "a: " + "[" * 100_000 + "]" * 100_000,       # closed: valid YAML, 100k levels
    "a: " + "{a: " * 60_000 + "}" * 60_000,      # flow mappings
    "a:\n" + "- " * 100_000 + "x\n",             # compact block sequences on one line
], ids=["open-flow-seq", "closed-flow-seq", "flow-maps", "compact-block-seq"])
def test_deep_nesting_is_refused_without_crashing_the_interpreter(
        text: str, tmp_path: Path) -> None:
    # libyaml's Cython composer recurses in C and segfaults past ~20k levels; the loader
    # must refuse before composing. A subprocess, so a regression cannot kill pytest.
    f = tmp_path / "deep.yaml"
    f.write_text(text)
    code = ("import sys, json; from validator.load import load_yaml; "
            "d = load_yaml(open(sys.argv[1], 'rb').read(), 'deep.yaml'); "
            "print(json.dumps([(x.rule, x.line, x.message) for x in d.findings]))")
    proc = subprocess.run([sys.executable, "-c", code, str(f)], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-500:])
    findings = json.loads(proc.stdout)
    assert [r for r, _, _ in findings] == ["YAML007"]
    assert "nests deeper than" in findings[0][2]


def test_nesting_limit_boundary() -> None:
    ok = load_yaml(("a: " + "[" * 63 + "]" * 63).encode(), "t.yaml")
    deep = load_yaml(("a: " + "[" * 65 + "]" * 65).encode(), "t.yaml")
    assert ok.ok and not ok.findings
    assert [f.rule for f in deep.findings] == ["YAML007"] and deep.data is None


@dataclass
class LoaderWork:
    """What one ``load_yaml`` did, counted: the work a hostile document could inflate."""

    events: int = 0
    """Parser events the pre-scan read (a node as written counts once, an alias once)."""
    composed: int = 0
    """Distinct nodes composed (libyaml's graph: an alias is the node it names)."""
    built: int = 0
    """Nodes the builder made (each alias expansion, each key counted)."""


WORK_LIMIT = 4 * DEFAULT_MAX_NODES
"""Past this much of any one kind of work a load is stopped by an ``AssertionError``, so a
loader that lost a limit fails its test at once instead of running for hours."""


def _graph_size(nodes: list[yaml.Node]) -> int:
    seen: set[int] = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            stack += node.value
        elif isinstance(node, yaml.MappingNode):
            stack += [n for pair in node.value for n in pair]
    return len(seen)


@pytest.fixture()
def loader_work(monkeypatch: pytest.MonkeyPatch) -> LoaderWork:
    """Counts the work of the loads the test makes (:class:`LoaderWork`), by wrapping the
    pre-scan's ``yaml.parse``, the loader's ``yaml.compose_all`` and the builder's two
    node-making methods; the real loader runs."""
    work = LoaderWork()

    def charge(kind: str, amount: int = 1) -> None:
        setattr(work, kind, getattr(work, kind) + amount)
        assert getattr(work, kind) <= WORK_LIMIT, f"unbounded work: {kind} > {WORK_LIMIT}"

    real_parse, real_compose_all = yaml.parse, yaml.compose_all

    def parse(*args: Any, **kwargs: Any) -> Iterator[yaml.Event]:
        for event in real_parse(*args, **kwargs):
            charge("events")
            yield event

    def compose_all(*args: Any, **kwargs: Any) -> Iterator[yaml.Node]:
        nodes = list(real_compose_all(*args, **kwargs))
        charge("composed", _graph_size(nodes))
        return iter(nodes)

    monkeypatch.setattr(yaml, "parse", parse)
    monkeypatch.setattr(yaml, "compose_all", compose_all)
    for method in ("build", "key_text"):
        real = getattr(Builder, method)

        def counted(self: Builder, *args: Any, _real: Any = real, **kwargs: Any) -> Any:
            charge("built")
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(Builder, method, counted)
    return work


def test_billion_laughs_is_refused_after_a_bounded_number_of_nodes(
        loader_work: LoaderWork) -> None:
    """Nine levels of ten aliases each expand to 10^10 strings: the builder counts each
    expansion and stops one node past the limit; libyaml composes the aliases as shared
    nodes (each level's list once)."""
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 10)]
    doc = load_yaml("\n".join(lines).encode(), "lol.yaml")
    assert [f.rule for f in doc.findings] == ["YAML007"]
    assert str(DEFAULT_MAX_NODES) in doc.findings[0].message
    assert doc.data is None
    assert loader_work.built == DEFAULT_MAX_NODES + 1
    assert loader_work.composed < 50
    # with a lower limit, the builder stops as soon
    small = load_yaml("\n".join(lines).encode(), "lol.yaml", max_nodes=1000)
    assert [f.rule for f in small.findings] == ["YAML007"]
    assert loader_work.built == DEFAULT_MAX_NODES + 1 + 1001


def test_merge_key_bomb_is_refused() -> None:
    lines = ["b0: &b0 {k0: 1, k1: 2, k2: 3, k3: 4, k4: 5}"]
    lines += [f"b{i}: &b{i} [" + ", ".join([f"*b{i - 1}"] * 10) + "]" for i in range(1, 8)]
    lines += ["c:", "  <<: *b7"]
    doc = load_yaml("\n".join(lines).encode(), "merge.yaml")
    assert [f.rule for f in doc.findings] == ["YAML007"]


def test_long_merge_key_chain_is_refused_after_work_its_length_does_not_change(
        loader_work: LoaderWork) -> None:
    """Each link merges the one before: refused where the merges nest past the depth
    limit, after the same work for a chain of 500 links as for one of 5,000."""
    built = []
    for links in (500, 5000):
        lines = ["a0: &a0 {x: 1}"]
        lines += [f"a{i}: &a{i} {{<<: *a{i - 1}, y{i}: 1}}" for i in range(1, links)]
        loader_work.built = 0
        doc = load_yaml("\n".join(lines).encode(), "chain.yaml")
        assert [f.rule for f in doc.findings] == ["YAML007"]
        assert f"nests deeper than {DEFAULT_MAX_DEPTH} levels" in doc.findings[0].message
        built.append(loader_work.built)
    assert built[0] == built[1] <= (DEFAULT_MAX_DEPTH + 2) ** 2


@pytest.mark.parametrize("raw", [
    b"a: [" + b"x," * 1_000_000 + b"]",             # 1M nodes on one 2 MB line
    b"a:\n" + b"- x\n" * 500_000,                    # 500k block items
    b"{" + b"k: v, " * 330_000 + b"}",               # 330k duplicate keys
], ids=["one-line-1M", "block-500k", "dup-keys-330k"])
def test_huge_node_counts_are_refused_by_the_prescan_in_bounded_memory(
        raw: bytes, loader_work: LoaderWork) -> None:
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    doc = load_yaml(raw, "wide.yaml", max_bytes=4 * 1024 * 1024)
    assert [f.rule for f in doc.findings] == ["YAML007"]
    # the pre-scan stops one node past the limit, before anything is composed or built
    assert loader_work.events <= DEFAULT_MAX_NODES + 3
    assert loader_work.composed == loader_work.built == 0
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 150


def test_many_duplicate_keys_below_the_node_limit_are_capped() -> None:
    raw = ("m:\n" + "  k: 1\n" * 5000).encode()
    doc = load_yaml(raw, "dups.yaml")
    dups = [f for f in doc.findings if f.rule == "YAML002"]
    assert len(dups) == 101
    assert "4899 more YAML002 findings" in dups[-1].message


def test_crlf_real_recipes_keep_every_position(corpus_repo: Path) -> None:
    recipes = sorted((corpus_repo / "models").rglob("*.yaml"))
    assert len(recipes) == 173
    compared = 0
    for path in recipes:
        raw = path.read_bytes()
        lf = load_yaml(raw, "r.yaml")
        crlf = load_yaml(raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"), "r.yaml")
        assert lf.source_map.values == crlf.source_map.values, path
        assert lf.source_map.keys == crlf.source_map.keys, path
        assert lf.source_map.blocks == crlf.source_map.blocks, path
        assert [(f.rule, f.line, f.column, f.pointer, f.message) for f in lf.findings] == \
            [(f.rule, f.line, f.column, f.pointer, f.message) for f in crlf.findings], path
        compared += len(lf.source_map.values)
    assert compared > 10_000


def test_crlf_recipe_through_the_cli_reports_the_same_lines(
        corpus_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a real recipe with findings at main, converted to CRLF: same findings, same lines
    rel = "models/zai-org/GLM-5.2.yaml"
    target = corpus_copy / rel
    code_lf, before, _ = run_json([str(target)], capsys)
    target.write_bytes(target.read_bytes().replace(b"\n", b"\r\n"))
    code_crlf, after, _ = run_json([str(target)], capsys)
    key = ("rule", "line", "column", "pointer", "message")
    a = [tuple(f[k] for k in key) for d in before["documents"] if d["path"] == rel
         for f in d["findings"]]
    b = [tuple(f[k] for k in key) for d in after["documents"] if d["path"] == rel
         for f in d["findings"]]
    assert a == b and code_lf == code_crlf
    guide = load_yaml(target.read_bytes(), rel)
    line, _ = guide.source_map.block_line("/guide", 0)
    assert target.read_bytes().split(b"\r\n")[line - 1].strip() == \
        guide.data["guide"].splitlines()[0].strip().encode()


def test_symlinks_leaving_the_tree_are_not_followed(
        tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    secret = tmp_path / "outside" / "secret.yaml"
    secret.parent.mkdir()
    secret.write_text("model:\n  model_id: leaked/secret\n")
    (tree / "models" / "org" / "good.yaml").write_text(GOOD)
    os.symlink(secret, tree / "models" / "org" / "link.yaml")
    os.symlink(secret.parent, tree / "models" / "evil")
    code, report, err = run_json([str(tree / "models")], capsys)
    paths = [d["path"] for d in report["documents"]]
    assert "models/org/good.yaml" in paths
    # a linked folder is not walked into; leaving the tree, the link itself is refused
    assert not any(p.startswith("models/evil/") for p in paths)
    evil = next(d for d in report["documents"] if d["path"] == "models/evil")
    assert [f["rule"] for f in evil["findings"]] == ["PROV005"]
    link = next(d for d in report["documents"] if d["path"] == "models/org/link.yaml")
    assert [f["rule"] for f in link["findings"]] == ["PROV005"]  # refused, not skipped
    assert "leaked" not in json.dumps(report)
    # named explicitly, the link is refused the same way: a PROV005 error, exit code 1
    code, report, err = run_json([str(tree / "models" / "org" / "link.yaml")], capsys)
    assert code == 1 and "Traceback" not in err
    [only] = [d for d in report["documents"] if d["path"].startswith("models/")]
    assert only["path"] == "models/org/link.yaml"
    assert [f["rule"] for f in only["findings"]] == ["PROV005"]
    assert "not followed" in only["findings"][0]["message"]
    assert "leaked" not in json.dumps(report)


def test_symlink_inside_the_tree_is_read(tree: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "models" / "org" / "real.yaml").write_text(GOOD)
    os.symlink(tree / "models" / "org" / "real.yaml", tree / "models" / "org" / "alias.yaml")
    _, report, _ = run_json([str(tree / "models")], capsys)
    assert "models/org/alias.yaml" in [d["path"] for d in report["documents"]]


@pytest.mark.parametrize("spec", [
    "vllm-project/recipes@main:../../etc/passwd",
    "vllm-project/recipes@main:/etc/passwd",
    "vllm-project/recipes@main:models/../../../etc/passwd",
    "vllm-project/recipes@main:models/%2e%2e/%2e%2e/etc/passwd",
    "vllm-project/recipes@main:models\\..\\x.yaml",
    "vllm-project/recipes@main:.git/config",
    "vllm-project/recipes@--upload-pack=touch /tmp/x:models/a.yaml",
    "vllm-project/recipes@main..other:models/a.yaml",
])
def test_fetch_specs_with_traversal_are_refused(spec: str) -> None:
    from validator.source.spec import SpecError, parse_spec

    with pytest.raises(SpecError):
        parse_spec(spec)


@pytest.mark.parametrize("command", [[], ["check"], ["fetch"], ["record"]])
@pytest.mark.parametrize("path", ["../../etc/passwd", "/etc/passwd", "models/../../x.yaml"])
def test_traversal_spec_on_the_command_line_is_a_usage_error(
        command: list[str], path: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    args = [*command, f"vllm-project/recipes@main:{path}"]
    if command != ["fetch"]:
        args.append("--offline")
    else:
        args += ["--snapshot-dir", str(tmp_path / "snap")]
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2
    assert path in err and "Traceback" not in err
    assert not (tmp_path / "snap").exists() or not any((tmp_path / "snap").rglob("*.yaml"))


def test_safe_spec_is_accepted() -> None:
    from validator.source.spec import parse_spec

    spec = parse_spec("vllm-project/recipes@" + "a" * 40 + ":models/zai-org/GLM-5.2.yaml")
    assert spec.pinned and spec.path == "models/zai-org/GLM-5.2.yaml"


@contextmanager
def fifo_readers(fifo: Path) -> Iterator[list[str]]:
    """Counts the readers that open ``fifo`` while the block runs: a writer end is opened
    (non-blocking: it succeeds only while a reader has the FIFO open) and closed at once,
    so such a reader gets end-of-file and goes on. A reader is counted; it never hangs."""
    readers: list[str] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # ENXIO: no reader has it open
                stop.wait(0.002)
                continue
            readers.append("opened for reading")
            os.close(fd)
            stop.wait(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield readers
    finally:
        stop.set()
        watcher.join()


def test_fifo_is_refused_not_waited_on(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tree / "models" / "org" / "pipe.yaml"
    os.mkfifo(fifo)
    (tree / "models" / "org" / "good.yaml").write_text(GOOD)
    with fifo_readers(fifo) as readers:
        code = main([str(fifo)])
        captured = capsys.readouterr()
        out = captured.out + captured.err
        assert code == 1 and "pipe.yaml" in out and "not a regular file" in out
        _, report, _ = run_json([str(tree / "models")], capsys)  # refused in a folder walk
    assert {d["path"]: [f["rule"] for f in d["findings"]] for d in report["documents"]
            if d["path"] == "models/org/pipe.yaml"} == {"models/org/pipe.yaml": ["PROV005"]}
    assert readers == []  # never opened: not read, not waited on


def test_file_above_the_read_limit_is_not_read_into_memory(
        tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("validator.source.tree.READ_LIMIT", 4096)
    big = tree / "models" / "org" / "huge.yaml"
    big.write_bytes(b"# x\n" * 5000)
    code = main([str(big), "--max-bytes", str(10**9)])
    out = capsys.readouterr().out
    assert code == 1 and "huge.yaml" in out and "larger than 4096 bytes" in out
    assert "PROV005" in out


def test_hostile_context_files_are_findings_not_crashes(
        tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    (tree / "taxonomy.yaml").write_text("\n".join(lines))
    (tree / "strategies" / "deep.yaml").write_text("a: " + "[" * 50_000)
    (tree / "strategies" / "bin.yaml").write_bytes(b"\x00\x01")
    (tree / "models" / "org" / "good.yaml").write_text(GOOD)
    code, report, err = run_json([str(tree / "models" / "org" / "good.yaml")], capsys)
    assert code == 1 and "Traceback" not in err
    rules = {d["path"]: [f["rule"] for f in d["findings"]] for d in report["documents"]}
    assert rules["taxonomy.yaml"] == ["YAML007"]
    assert rules["strategies/deep.yaml"] == ["YAML007"]
    assert rules["strategies/bin.yaml"] == ["YAML006"]
    assert "models/org/good.yaml" in rules
