"""The package's shape, read from its import graph (ast): a family (robust, ramp, fixed_size, ellipsoid) imports the
shared layer (``_shared``), the core (``_core``), ``kernels`` and ``exceptions``, never another family; no module
imports another module's underscore name; svmopt's own modules are imported at the top of a file; no module of the
package is over 600 lines; every family's ``__init__`` lists its public names."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "svmopt"
FAMILIES = ("robust", "ramp", "fixed_size", "ellipsoid")
#: What a family may import of svmopt besides itself.
FAMILY_MAY_IMPORT = ("svmopt._shared", "svmopt._core", "svmopt.kernels", "svmopt.exceptions")
#: Private modules whose names are imported by name (the compiled core's variants are chosen in _core/__init__.py).
PRIVATE_MODULES = {"_core", "_core_baseline", "_core_avx2", "_shared"}
MAX_LINES = 600


def _modules() -> list[tuple[str, Path]]:
    out = []
    for f in sorted(PACKAGE.rglob("*.py")):
        parts = list(f.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out.append((".".join(parts), f))
    return out


MODULES = _modules()


def _imports(path: Path):
    """(line, importing scope is the module's top, imported module, imported names) of svmopt's own imports."""
    tree = ast.parse(path.read_text())
    top = {id(n) for n in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and \
                (node.module == "svmopt" or node.module.startswith("svmopt.")):
            yield node.lineno, id(node) in top, node.module, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "svmopt" or a.name.startswith("svmopt."):
                    yield node.lineno, id(node) in top, a.name, []


def _family(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in FAMILIES else None


@pytest.mark.parametrize("module,path", MODULES, ids=[m for m, _ in MODULES])
def test_a_family_imports_only_itself_and_the_shared_layer(module, path):
    fam = _family(module)
    if fam is None:
        return
    for line, _, target, names in _imports(path):
        targets = [target] if target != "svmopt" else [f"svmopt.{n}" for n in names]
        for t in targets:
            ok = _family(t) == fam or any(t == a or t.startswith(a + ".") for a in FAMILY_MAY_IMPORT)
            assert ok, f"{path.name}:{line}: family {fam!r} imports {t}"


@pytest.mark.parametrize("module,path", MODULES, ids=[m for m, _ in MODULES])
def test_no_underscore_name_is_imported_from_another_module(module, path):
    for line, _, target, names in _imports(path):
        for n in names:
            if n.startswith("_") and n not in PRIVATE_MODULES:
                pytest.fail(f"{path.relative_to(PACKAGE.parent)}:{line}: imports {n} from {target}")
        last = target.split(".")[-1]
        if last.startswith("_") and last not in PRIVATE_MODULES and not target.startswith("svmopt._shared"):
            pytest.fail(f"{path.relative_to(PACKAGE.parent)}:{line}: imports from the private module {target}")


@pytest.mark.parametrize("module,path", MODULES, ids=[m for m, _ in MODULES])
def test_own_modules_are_imported_at_the_top(module, path):
    if module.startswith("svmopt._core"):
        return  # the variant is chosen at import time
    lazy = [(line, t) for line, top, t, _ in _imports(path) if not top]
    # the command's lazy imports keep `svmopt --help` fast; nothing else imports svmopt lazily
    if module == "svmopt.cli":
        return
    assert not lazy, f"{path.name}: svmopt imported inside a function at {lazy}"


@pytest.mark.parametrize("module,path", MODULES, ids=[m for m, _ in MODULES])
def test_modules_hold_one_concept(module, path):
    n = len(path.read_text().splitlines())
    assert n <= MAX_LINES, f"{path.relative_to(PACKAGE.parent)} has {n} lines (at most {MAX_LINES}): split it"


@pytest.mark.parametrize("family", FAMILIES)
def test_a_family_lists_its_public_names(family):
    mod = importlib.import_module(f"svmopt.{family}")
    assert mod.__all__, family
    for name in mod.__all__:
        assert not name.startswith("_") and hasattr(mod, name), (family, name)


def test_the_package_reexports_every_estimator_from_its_family():
    import svmopt

    for family in FAMILIES:
        mod = importlib.import_module(f"svmopt.{family}")
        for name in mod.__all__:
            if name in svmopt.__all__:
                assert getattr(svmopt, name) is getattr(mod, name)


REPO = PACKAGE.parents[1]
OUTSIDE = [f for d in ("tests", "benchmarks", "reproductions", "tools") for f in sorted((REPO / d).rglob("*.py"))]


@pytest.mark.parametrize("path", OUTSIDE, ids=[str(f.relative_to(REPO)) for f in OUTSIDE])
def test_tests_benchmarks_and_protocols_import_no_underscore_name(path):
    """The rule holds beyond the package: tests, benchmarks and protocols use public names (``_core`` aside)."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                assert not (a.name.startswith("_") and a.name not in PRIVATE_MODULES | {"__version__"}), \
                    f"{path.relative_to(REPO)}:{node.lineno}: imports {a.name} from {node.module}"
