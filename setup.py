"""Build hook: copy ``schemas/`` and ``snapshots/`` into the wheel as ``validator/_data``.

Everything else is declared in ``pyproject.toml``. An editable install reads the folders
from the checkout instead (see ``validator/paths.py``).
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


class BuildPyWithData(build_py):
    """``build_py`` that also copies the project's data folders into the package."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for name in ("schemas", "snapshots"):
            source = HERE / name
            if source.is_dir():
                shutil.copytree(source, Path(self.build_lib) / "validator" / "_data" / name,
                                dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("recipes", "*.lock"))


setup(cmdclass={"build_py": BuildPyWithData})
