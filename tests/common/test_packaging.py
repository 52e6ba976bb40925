"""The distribution carries its license: LICENSE in the installed wheel's metadata and in the sdist."""

from __future__ import annotations

import importlib.metadata
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_installed_distribution_carries_the_license():
    dist = importlib.metadata.distribution("svmopt")
    licenses = [f for f in dist.files or () if f.name == "LICENSE" and "licenses" in f.parts]
    assert licenses, "dist-info/licenses/LICENSE is missing from the installed distribution"
    text = licenses[0].read_text()
    assert "BSD 3-Clause" in text or "Redistribution and use in source and binary forms" in text
    assert (ROOT / "LICENSE").read_text() == text
    assert dist.metadata["License"] == "BSD-3-Clause"
    classifiers = dist.metadata.get_all("Classifier") or []
    assert "License :: OSI Approved :: BSD License" in classifiers
    assert any(c.startswith("Development Status ::") for c in classifiers)
    assert any(c.startswith("Programming Language :: Python :: 3.1") for c in classifiers)


def test_metadata_matches_the_project_file():
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    skb = meta["tool"]["scikit-build"]
    assert "LICENSE" in skb["wheel"]["license-files"] and "LICENSE" in skb["sdist"]["include"]
    dist = importlib.metadata.distribution("svmopt")
    assert set(dist.metadata.get_all("Classifier") or []) == set(meta["project"]["classifiers"])


def test_sdist_contains_the_license(tmp_path):
    build = pytest.importorskip("scikit_build_core.build", reason="scikit-build-core (a build requirement) is not "
                                "installed in this environment, so the sdist cannot be built here")
    import os

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        name = build.build_sdist(str(tmp_path))
    finally:
        os.chdir(cwd)
    with tarfile.open(tmp_path / name) as tar:
        names = tar.getnames()
    top = name.removesuffix(".tar.gz")
    for member in ("LICENSE", "pyproject.toml", "CMakeLists.txt", "README.md"):
        assert f"{top}/{member}" in names, member
    assert any(n.startswith(f"{top}/cpp/src/") for n in names)
