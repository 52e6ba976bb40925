"""Every ```python example of README.md and the user guide (docs/guide/*.md) runs, so the docs cannot rot.

Blocks of one file run in order in one shared namespace (a later block may use an earlier one's names), in a
temporary working directory. A block is skipped when its fence reads ```python no-run or when the line
before it is ``<!-- skip -->``; a block whose fence reads ```python onnx (an export to ONNX) runs where the `onnx`
extra (skl2onnx, onnxruntime) is installed, as it is in the development install. Relative links of those files
must point to files that exist.
"""

from __future__ import annotations

import ast
import builtins
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "guide"
GUIDE_PAGES = (
    "index.md",
    "installation.md",
    "quickstart.md",
    "robust.md",
    "ramp.md",
    "fixed_size.md",
    "ellipsoid.md",
    "scaling.md",
    "export.md",
)

#: whether the `onnx` extra is installed (the ```python onnx blocks run only then)
HAS_ONNX_EXTRA = all(importlib.util.find_spec(m) is not None for m in ("skl2onnx", "onnxruntime"))

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_SKIP_MARK = "<!-- skip -->"


@dataclass
class Block:
    """One fenced code block: its language, info words, first code line (1-based), code and skip flag."""

    lang: str
    info: tuple[str, ...]
    line: int
    code: str
    skip: bool


def fenced_blocks(text: str) -> list[Block]:
    """All fenced code blocks of a Markdown text (backtick or tilde fences, CommonMark closing rule)."""
    lines = text.splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None or ("`" in m["info"] and m["fence"][0] == "`"):
            i += 1
            continue
        fence, indent = m["fence"], len(m["indent"])
        words = tuple(m["info"].split())
        previous = next((lines[j].strip() for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        body: list[str] = []
        j = i + 1
        while j < len(lines):
            close = _FENCE.match(lines[j])
            closes = close and close["fence"][0] == fence[0] and len(close["fence"]) >= len(fence)
            if closes and not close["info"].strip():
                break
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
            j += 1
        lang = words[0].lower() if words else ""
        skip = "no-run" in words[1:] or previous == _SKIP_MARK
        blocks.append(Block(lang, words[1:], i + 2, "\n".join(body) + "\n", skip))
        i = j + 1
    return blocks


def python_blocks(path: Path) -> list[Block]:
    return [b for b in fenced_blocks(path.read_text(encoding="utf-8")) if b.lang in ("python", "py")]


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted(GUIDE.glob("*.md"))]


def test_guide_has_every_page():
    missing = [name for name in GUIDE_PAGES if not (GUIDE / name).is_file()]
    assert not missing, f"docs/guide lacks {missing}"


def test_block_parser():
    text = "\n".join([
        "# t",
        "```python",
        "a = 1",
        "```",
        "text",
        "```python no-run",
        "raise SystemExit",
        "```",
        "<!-- skip -->",
        "",
        "```python",
        "raise SystemExit",
        "```",
        "````markdown",
        "```python",
        "inner = 1",
        "```",
        "````",
        "```bash",
        "svmopt run",
        "```",
        "  ```python",
        "  b = 2",
        "  ```",
    ])
    blocks = fenced_blocks(text)
    assert [(b.lang, b.skip) for b in blocks] == [
        ("python", False), ("python", True), ("python", True), ("markdown", False), ("bash", False), ("python", False)
    ]
    assert blocks[0].code == "a = 1\n" and blocks[0].line == 3
    assert "inner = 1" in blocks[3].code  # a fence inside a longer fence is content
    assert blocks[5].code == "b = 2\n"  # indentation of the fence is removed


@pytest.mark.parametrize("path", doc_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_examples_run(path, tmp_path, monkeypatch):
    blocks = python_blocks(path)
    if path.parent == GUIDE and path.name not in ("index.md",):
        assert any(not b.skip for b in blocks), f"{path.name} has no runnable example"
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    namespace: dict = {"__name__": "__docs__"}
    for block in blocks:
        if block.skip or ("onnx" in block.info and not HAS_ONNX_EXTRA):
            continue
        name = f"{path.relative_to(ROOT)}:{block.line}"
        try:
            exec(compile(block.code, name, "exec"), namespace)
        except Exception as exc:
            raise AssertionError(f"example at {name} failed: {type(exc).__name__}: {exc}") from exc


_LINK = re.compile(r"\[[^\]]*\]\((?P<target>[^)\s]+)\)")


@pytest.mark.parametrize("path", doc_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path):
    text = path.read_text(encoding="utf-8")
    code_free = re.sub(r"```.*?```", "", text, flags=re.S)
    broken = []
    for m in _LINK.finditer(code_free):
        target = m["target"].split("#", 1)[0]
        if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target):
            continue  # in-page anchor, or an absolute URL (http:, https:, mailto:)
        if not (path.parent / target).exists():
            broken.append(m["target"])
    assert not broken, f"{path.relative_to(ROOT)} links to missing files: {broken}"


# ---------------------------------------------------------------------------- every block of every page
def all_doc_pages() -> list[Path]:
    """README.md and every Markdown page under docs/ (the reproduction reports included)."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _names(code: str) -> tuple[set[str], set[str], set[str]]:
    """The names a block imports, the other names it binds, and the names it reads."""
    imported: set[str] = set()
    bound: set[str] = set()
    read: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imported.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return imported, bound, read


def _section_of(text: str, blocks: list[Block]) -> list[int]:
    """For each block, the line of the heading it sits under (0: before any heading)."""
    inside = {j for b in blocks for j in range(b.line - 1, b.line + b.code.count("\n"))}
    headings = [i + 1 for i, line in enumerate(text.splitlines()) if i + 1 not in inside
                and re.match(r"^#{1,6} ", line)]
    return [max((h for h in headings if h < b.line), default=0) for b in blocks]


@pytest.mark.parametrize("path", all_doc_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_python_block_compiles_and_imports_what_it_uses(path):
    """Every ```python block of every page (``no-run`` ones too) compiles; every name it reads is defined in it, in
    an earlier block of the page or a builtin; and a module or class imported under another heading is imported
    again, so that each section's example can be copied on its own (a later block of the same section may go on
    from an earlier one)."""
    text = path.read_text(encoding="utf-8")
    blocks = python_blocks(path)
    sections = _section_of(text, blocks)
    defined: set[str] = set(dir(builtins))
    imported_in: dict[str, int] = {}  # name -> the section that imported it last
    problems = []
    for block, section in zip(blocks, sections, strict=True):
        where = f"{path.relative_to(ROOT)}:{block.line}"
        try:
            compile(block.code, where, "exec")
        except SyntaxError as exc:
            problems.append(f"{where}: {exc.msg}")
            continue
        imported, bound, read = _names(block.code)
        undefined = read - imported - bound - defined - set(imported_in)
        carried = {n for n in read - imported - bound if n in imported_in and imported_in[n] != section}
        if undefined:
            problems.append(f"{where} reads undefined {sorted(undefined)}")
        if carried:
            problems.append(f"{where} uses {sorted(carried)} imported under another heading without importing them")
        defined |= bound
        imported_in.update(dict.fromkeys(imported, section))
    assert not problems, "\n".join(problems)
