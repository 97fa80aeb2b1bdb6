"""``recipe-check --fix/--diff/--unsafe-fixes`` end to end: what is written, what is not,
and the real corpus at ``main``."""

from __future__ import annotations

import collections
import contextlib
import io
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from filelock import FileLock

from tests.conftest import check_tree, line_of
from tests.fix.test_fixes import PATH, RECIPE, changed_old_lines, make_tree
from tests.shared_run import run_folder, shared_result
from validator.cli import main
from validator.context import Settings
from validator.findings import Finding, Severity
from validator.fix.command import fix_targets, write_fixed
from validator.fix.model import Applicability
from validator.fix.registry import FIXES
from validator.rule_index import check_rules
from validator.source.local import Target
from validator.source.tree import LocalTree

BROKEN = (RECIPE.replace('      - "--max-model-len"\n', '      - "--max_model_len"  # x\n')
          .replace("    --tool-call-parser hermes\n  ```\n", "    --tool-call-parser hermes ```\n"))
FIXED = RECIPE.replace('      - "--max-model-len"\n', '      - "--max-model-len"  # x\n')
VERSION = re.compile(r"\d+(?:\.\d+)+(?:(?:a|b|rc)\d+)?")
SAFE_RULES = {r for r, spec in FIXES.items() if spec.applicability is Applicability.SAFE}


def test_diff_prints_a_patch_and_writes_nothing(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    root = make_tree(tmp_path, BROKEN)
    file = root / PATH
    assert main(["--diff", str(file)]) == 1
    captured = capsys.readouterr()
    assert file.read_text() == BROKEN
    assert ("would fix 2 finding(s) with 2 fix(es) in 1 file(s); fixes per rule: FLAG013 1, "
            "GUIDE013 1") in captured.err
    patch = tmp_path / "fix.patch"
    patch.write_text(captured.out)
    # the patch is what --fix writes: git applies it to the file's bytes
    subprocess.run(["git", "apply", str(patch)], cwd=root, check=True)
    assert file.read_text() == FIXED
    assert main(["--diff", str(file)]) == 0
    assert capsys.readouterr().out == ""


def test_diff_quotes_a_file_name_with_a_line_break_as_git_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A recipe named with line breaks (``x\\n+++ pwned.yaml\\n@@ ...``): the patch's
    headers quote it as ``git diff`` does (the oracle: git's own diff of the same change),
    so ``patch -p1`` fixes that file and creates no other; the stderr lines keep the name
    on one line."""
    root = make_tree(tmp_path, BROKEN)
    name = "models/acme/x\n+++ pwned.yaml\n@@ -0,0 +1 @@\n+owned\nq\u00e9.yaml"
    (root / PATH).rename(root / name)
    assert main(["--diff", str(root / "models/acme")]) == 1
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 3 and all(line.startswith(("models/acme/x\\u000a+++ pwned.yaml",
                                                    "would fix")) for line in lines), lines
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t",
                                                  "commit", "-qm", "broken"]):
        subprocess.run(["git", *args], cwd=root, check=True)
    (root / name).write_text(FIXED)
    git_diff = subprocess.run(["git", "diff"], cwd=root, check=True, capture_output=True,
                              text=True).stdout
    headers = [line for line in git_diff.splitlines() if line.startswith(("--- ", "+++ "))]
    assert headers == [line for line in captured.out.splitlines()
                       if line.startswith(("--- ", "+++ "))]
    subprocess.run(["git", "checkout", "-q", "--", "."], cwd=root, check=True)
    patch = tmp_path / "fix.patch"
    patch.write_text(captured.out)
    subprocess.run(["patch", "-s", "-p1", "-i", str(patch)], cwd=root, check=True)
    assert (root / name).read_text() == FIXED
    assert not list(root.rglob("pwned.yaml"))


def test_fix_writes_atomically_keeps_the_mode_and_rechecks(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_tree(tmp_path, BROKEN)
    file = root / PATH
    file.chmod(0o664)
    assert main(["--fix", str(file)]) == 0  # nothing remains
    captured = capsys.readouterr()
    assert file.read_text() == FIXED
    assert file.stat().st_mode & 0o777 == 0o664
    glued = line_of(BROKEN, "hermes ```")
    assert f"{PATH}:{glued}: fixed GUIDE013 (safe)" in captured.err
    assert "fixed 2 finding(s) with 2 fix(es) in 1 file(s)" in captured.err
    assert "0 error(s), 0 warning(s)" in captured.out
    assert not [p for p in file.parent.iterdir() if p.name.endswith(".tmp")]


def test_unparsable_file_is_never_written(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    bad = BROKEN.replace("  tasks: [text]\n", "  tasks: [text\n")
    root = make_tree(tmp_path, bad)
    file = root / PATH
    assert main(["--fix", str(file)]) == 1
    err = capsys.readouterr().err
    assert file.read_text() == bad
    assert f"{PATH}: not fixed: the file does not load" in err


def test_file_changed_between_read_and_write_is_not_written(tmp_path: Path) -> None:
    root = make_tree(tmp_path, BROKEN)
    target = Target(LocalTree(root), PATH)
    [outcome] = fix_targets([target], Settings(), check_rules(), unsafe=False)
    assert outcome.changed
    edited = BROKEN + "# edited by someone else meanwhile\n"
    (root / PATH).write_text(edited)
    assert write_fixed(target, outcome) == "changed since it was read; not written"
    assert (root / PATH).read_text() == edited


def test_unsafe_fixes_alone_is_a_usage_error(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    root = make_tree(tmp_path, BROKEN)
    assert main(["--unsafe-fixes", str(root / PATH)]) == 2
    assert "--unsafe-fixes needs --fix or --diff" in capsys.readouterr().err


def test_rules_show_fixability(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    lines = {ln.split()[0]: ln for ln in capsys.readouterr().out.splitlines()}
    assert "fix: safe" in lines["FLAG013"] and "fix: unsafe" in lines["REF019"]
    assert "fix:" not in lines["FLAG001"]


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted((root / "models").rglob("*.yaml"))}


@dataclass(frozen=True)
class CorpusFix:
    """One ``--fix`` run over a copy of corpus ``main`` and what the tests assert on."""

    targets: frozenset[str]
    """The recipes the run was given (every recipe for the whole ``models/`` folder)."""
    original: dict[str, bytes]
    """Every recipe's bytes before the run."""
    fixed: dict[str, bytes]
    """Every recipe's bytes after it."""
    err: str
    """Its stderr: what was fixed, and each fixable finding left with the reason."""
    after: list[Finding]
    """Every finding of the fixed copy (:func:`check_tree`)."""
    again_err: str
    """The stderr of ``--fix`` run again on the files the first run changed."""
    again: dict[str, bytes]
    """Every recipe's bytes after that second run."""

    @property
    def changed(self) -> list[str]:
        return [p for p in self.original if self.fixed[p] != self.original[p]]


def _fix(root: Path, *args: str) -> str:
    """``recipe-check --fix --offline ARGS``; its stderr."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        main(["--fix", "--offline", *args])
    return err.getvalue()


def fix_corpus(dest: Path, before: list[Finding], *unsafe: str,
               paths: Sequence[str] | None = None) -> CorpusFix:
    """``--fix`` (with ``unsafe``: ``--unsafe-fixes``) on the copy of the corpus at
    ``dest`` (:func:`corpus_fix_folder`): on ``paths``, or the whole ``models/`` folder;
    ``dest`` is as it was before the run when it returns. The fixed copy's findings are
    those of ``before`` for every recipe the run left as it was (a recipe's findings depend
    on its own bytes and its context, never on another recipe's: the unit cache's key,
    :mod:`validator.unit_cache`), checked again for those it changed; the second ``--fix``
    runs on the changed files too (the others it would read as the first did)."""
    with FileLock(f"{dest}.lock"):
        original = _snapshot(dest)
        targets = [str(dest / p) for p in paths] if paths is not None else [str(dest / "models")]
        try:
            err = _fix(dest, *unsafe, *targets)
            fixed = _snapshot(dest)
            changed = [p for p in original if fixed[p] != original[p]]
            after = [f for f in before if f.path not in changed] + check_tree(dest, *changed)
            again_err = _fix(dest, *unsafe, *(str(dest / p) for p in changed)) if changed else ""
            again = _snapshot(dest)
        finally:
            _restore(dest, original)
    given = frozenset(paths) if paths is not None else frozenset(original)
    return CorpusFix(given, original, fixed, err, after, again_err, again)


def _restore(root: Path, original: dict[str, bytes]) -> None:
    """Every recipe of ``root`` back to its bytes of ``original`` (its mode kept); a
    recipe ``original`` does not have removed."""
    for path, data in _snapshot(root).items():
        if path not in original:
            (root / path).unlink()
        elif data != original[path]:
            (root / path).write_bytes(original[path])


def corpus_fix_folder(corpus_repo: Path, factory: pytest.TempPathFactory) -> Path:
    """One copy of corpus ``main`` (no ``.git``) per pytest run, shared by its xdist
    workers, that every ``--fix`` of the corpus tests runs in (:func:`fix_corpus`, one at a
    time, each leaving it as it found it). One folder, so that the run's result cache
    (:mod:`validator.unit_cache`: its key holds the tree's folder) answers a check of a
    text that an earlier ``--fix`` checked already: the unsafe sample shares five
    recipes with the safe one, whose candidate fixes it checks again (its ``--fix``:
    8.7 s of CPU after the safe one in another folder, 3.9 s in the same one)."""
    dest = run_folder(factory, "corpus-fix") / "recipes"
    with FileLock(f"{dest}.lock"):
        if not dest.is_dir():
            partial = dest.with_name("recipes.partial")
            shutil.rmtree(partial, ignore_errors=True)
            shutil.copytree(corpus_repo, partial, ignore=shutil.ignore_patterns(".git"))
            partial.rename(dest)
    return dest


SAFE_SAMPLE = (
    "models/ByteDance-Seed/Seed-OSS-36B-Instruct.yaml",
    "models/deepseek-ai/DeepSeek-V4-Flash.yaml",
    "models/microsoft/Phi-4-multimodal-instruct.yaml",
    "models/mistralai/Ministral-3-14B-Instruct-2512.yaml",
    "models/mistralai/Mistral-Medium-3.5-128B.yaml",
    "models/XiaomiMiMo/MiMo-V2.5-Pro.yaml",
)
"""The recipes ``--fix`` runs on by default; ``-m full_sweep`` runs it on the whole
``models/`` folder. Chosen with coverage.py (branch coverage, one coverage context per
recipe, a greedy cover weighted by each recipe's fix time) over the fix code:
``validator/fix/`` and every function a rule module registers with ``@fixer``. Together
they take the 665 arcs of it that the 173 recipes of the whole folder take, and each kind
of fix applied and of fix refused that the whole folder's stderr shows (``fixed RULE``,
``RULE not fixed: <reason>`` by rule, reason and, for a fix that would bring a new
finding, that finding's rule and place: 7 kinds), in some 19 % of the whole folder's fix
time. A safe ``FLAG013`` fix that would bring an info ``FLAG012`` in a strategy's
overrides is among them: counting only new errors for safe fixes fails the sample as it
fails the whole folder (at ``DeepSeek-V4-Flash.yaml``). What the rules find in the fixed
texts is the rules' code, which the whole-corpus checks of each family's tests cover."""

UNSAFE_SAMPLE = (
    "models/deepseek-ai/DeepSeek-V3.2-Exp.yaml",
    "models/deepseek-ai/DeepSeek-V4-Flash.yaml",
    "models/Google/diffusiongemma-26B-A4B-it.yaml",
    "models/jinaai/jina-reranker-m0.yaml",
    "models/meta-llama/Llama-3.3-70B-Instruct.yaml",
    "models/microsoft/Phi-4-multimodal-instruct.yaml",
    "models/microsoft/Phi-4-reasoning.yaml",
    "models/mistralai/Ministral-3-14B-Instruct-2512.yaml",
    "models/mistralai/Mistral-Medium-3.5-128B.yaml",
    "models/moonshotai/Kimi-K2-Instruct.yaml",
    "models/moonshotai/Kimi-Linear-48B-A3B-Instruct.yaml",
    "models/Qwen/Qwen2.5-VL-7B-Instruct.yaml",
    "models/Qwen/Qwen3-235B-A22B-Instruct-2507.yaml",
    "models/XiaomiMiMo/MiMo-V2.5-Pro.yaml",
)
"""The recipes ``--fix --unsafe-fixes`` runs on by default; ``-m full_sweep`` runs it on
every recipe with a finding of a rule that has a fix (81). Chosen as :data:`SAFE_SAMPLE`:
they take the 792 arcs of the fix code those 81 take and each of the 20 kinds of fix
applied and refused, in some 31 % of their fix time."""

CORPUS_SCOPES = [pytest.param("sample", id="sample"),
                 pytest.param("corpus", id="corpus", marks=pytest.mark.full_sweep)]


@pytest.fixture(params=CORPUS_SCOPES)
def corpus_scope(request: pytest.FixtureRequest) -> str:
    """``sample``: the recipes of :data:`SAFE_SAMPLE`/:data:`UNSAFE_SAMPLE`; ``corpus``
    (``-m full_sweep``): the whole corpus."""
    scope: str = request.param
    return scope


@pytest.fixture()
def safe_fix(corpus_repo: Path, corpus_main_findings: list[Finding], corpus_scope: str,
             tmp_path_factory: pytest.TempPathFactory) -> CorpusFix:
    """``--fix`` on the recipes of :data:`SAFE_SAMPLE` of corpus ``main`` (the full sweep:
    its whole ``models/`` folder), once per pytest run."""
    paths = SAFE_SAMPLE if corpus_scope == "sample" else None

    def compute() -> CorpusFix:
        return fix_corpus(corpus_fix_folder(corpus_repo, tmp_path_factory),
                          corpus_main_findings, paths=paths)

    return shared_result(tmp_path_factory, f"--fix of corpus main, {corpus_scope}", compute)


@pytest.fixture()
def unsafe_fix(corpus_repo: Path, corpus_main_findings: list[Finding], corpus_scope: str,
               tmp_path_factory: pytest.TempPathFactory) -> CorpusFix:
    """``--fix --unsafe-fixes`` on the recipes of :data:`UNSAFE_SAMPLE` of corpus ``main``
    (the full sweep: every recipe with a finding of a rule that has a fix), once per
    pytest run: the fix loop leaves every other file as it read it (it has nothing to fix
    there; the whole-folder run of the safe sweep shows that no such file is written)."""
    fixable = sorted({f.path for f in corpus_main_findings if f.rule in FIXES})
    paths = UNSAFE_SAMPLE if corpus_scope == "sample" else fixable

    def compute() -> CorpusFix:
        return fix_corpus(corpus_fix_folder(corpus_repo, tmp_path_factory),
                          corpus_main_findings, "--unsafe-fixes", paths=paths)

    return shared_result(
        tmp_path_factory, f"--fix --unsafe-fixes of corpus main, fixable, {corpus_scope}",
        compute)


def test_the_samples_are_recipes_of_the_corpus_with_fixable_findings(
        corpus_main_findings: list[Finding]) -> None:
    """Each sampled recipe exists at corpus ``main``, and each sample holds findings of
    the fixes it runs (a sample gone stale with the corpus would test less than it says)."""
    paths = {f.path for f in corpus_main_findings}
    assert set(SAFE_SAMPLE) <= paths and set(UNSAFE_SAMPLE) <= paths
    in_safe = {f.rule for f in corpus_main_findings if f.path in SAFE_SAMPLE}
    in_unsafe = {f.rule for f in corpus_main_findings if f.path in UNSAFE_SAMPLE}
    assert len(in_safe & SAFE_RULES) >= 4 and len(in_unsafe & set(FIXES) - SAFE_RULES) >= 4


@pytest.mark.corpus
@pytest.mark.slow
def test_safe_fixes_on_the_corpus_leave_only_refused_findings_and_bring_none_new(
        safe_fix: CorpusFix, corpus_main_findings: list[Finding]) -> None:
    before = [f for f in corpus_main_findings if f.path in safe_fix.targets]
    assert len(safe_fix.original) == 173
    assert {f.rule for f in before} & SAFE_RULES  # there is something to fix
    # a finding of a rule with a safe fix remains only where its fix was refused because
    # it would change what the site renders (e.g. a flag then set twice in a command)
    refused = set(re.findall(r"^(\S+?):(\d+): (\w+) not fixed: it would bring",
                             safe_fix.err, re.M))
    left = [f for f in safe_fix.after if f.rule in SAFE_RULES and f.path in safe_fix.targets]
    assert [f for f in left if (f.path, str(f.line), f.rule) not in refused] == []
    assert len(left) < len([f for f in before if f.rule in SAFE_RULES]) / 2
    # no new finding appears (same rule and message in the same file, counted)
    count = collections.Counter((f.path, f.rule, f.message) for f in corpus_main_findings)
    new = collections.Counter((f.path, f.rule, f.message) for f in safe_fix.after) - count
    assert not new, sorted(new)


@pytest.mark.corpus
@pytest.mark.slow
def test_safe_fixes_on_the_corpus_change_only_lines_a_fixed_finding_points_at(
        safe_fix: CorpusFix, corpus_main_findings: list[Finding]) -> None:
    lines = collections.defaultdict(set)
    for f in corpus_main_findings:
        if f.rule in SAFE_RULES:
            lines[f.path].add(f.line)
    assert safe_fix.changed
    for p in safe_fix.changed:
        assert changed_old_lines(safe_fix.original[p], safe_fix.fixed[p]) <= lines[p], p


@pytest.mark.corpus
@pytest.mark.slow
def test_safe_fix_on_the_corpus_fixed_again_changes_nothing(safe_fix: CorpusFix) -> None:
    assert "fixed 0 finding(s) with 0 fix(es) in 0 file(s)" in safe_fix.again_err
    assert safe_fix.again == safe_fix.fixed


OPTION_TOO_NEW = re.compile(r"^`(--[\w.-]+)`: `\1` exists only from ")


def judged_once_it_exists(before: list[Finding], after: list[Finding]) -> list[Finding]:
    """``after`` without the value findings a raised minimum brings to light: where an
    option did not exist at the old minimum (``FLAG002`` "exists only from"), its value
    could not be judged; once the fix raises the minimum to that release, a value of it
    accepted only later (``FLAG006``) is the same list's defect seen one step further."""
    late = {(f.path, m.group(1)) for f in before if f.rule == "FLAG002"
            and (m := OPTION_TOO_NEW.match(f.message))}
    return [f for f in after if not (f.rule == "FLAG006" and any(
        f.path == path and f.message.startswith(f"`{option} ") for path, option in late))]


@pytest.mark.corpus
@pytest.mark.slow
def test_unsafe_fixes_on_the_corpus_bring_no_new_error(
        unsafe_fix: CorpusFix, corpus_main_findings: list[Finding]) -> None:
    before = corpus_main_findings
    assert "fixed REF019 (unsafe)" in unsafe_fix.err and "fixed FLAG002 (unsafe)" in \
        unsafe_fix.err

    def errors(findings: list[Finding]) -> collections.Counter[tuple[str, str, str]]:
        return collections.Counter((f.path, f.rule, VERSION.sub("#", f.message))
                                   for f in findings if f.severity is Severity.ERROR)

    assert not errors(judged_once_it_exists(before, unsafe_fix.after)) - errors(before)
    assert len([f for f in unsafe_fix.after if f.severity is Severity.ERROR]) < len(
        [f for f in before if f.severity is Severity.ERROR])
    assert "fixed 0 finding(s) with 0 fix(es)" in unsafe_fix.again_err
    assert unsafe_fix.again == unsafe_fix.fixed
