"""The API reference (issue #30): every public name of gsr is in gsr.__all__ (loaded lazily, so `import gsr` stays
light), has a Google-style docstring (a summary line; `Args:` naming every parameter, `Returns:` where something is
returned, an `Example:`), is rendered by a `::: module.name` line of docs/api.md, and its `>>>` examples run as they
are written, with the names of `from gsr import *` at hand."""

from __future__ import annotations

import ast
import doctest
import functools
import importlib
import inspect
import io
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import gsr

PROJECT = Path(__file__).resolve().parents[1]
API_PAGE = PROJECT / "docs" / "api.md"
NAMES = sorted(set(gsr.__all__) - {"__version__"})
SECTION = re.compile(r"^(?P<title>[A-Z]\w*):\s*$")
RENDERED = re.compile(r"^:::\s+(?P<path>[\w.]+)\s*$", re.M)

# the names issue #30 asks for by name: none of them may leave gsr.__all__
REQUIRED = """
GSR GSRReport GSRResult QueryResult GenderLexicon GenderDirection fit_gender_direction word_genderedness measure_run
RankedRows DocumentStats GenderedDocuments perfect_run random_run cut_run relevant_counts query_genderedness
document_genderedness list_genderedness gsr_slope relative_gsr rank_discounts tied_rank_weights bootstrap_fit
percentile_interval paired_gsr_test gsr_difference_test Interval BiasMeasures DocumentLabels read_labels_file
read_trec_run write_trec_run read_qrels read_queries read_trec_topics as_run as_queries as_qrels open_documents
iter_documents register_document_source DocumentSource msmarco_gender_queries msmarco_gender_labels
ir_measures_measures BiasIRMeasures Analyzer default_analyzer read_stopwords GENDERED_KEEP_WORDS
DEFAULT_DEFINITIONAL_PAIRS GSRError InputError ConfigError ParamError UndefinedMeasureError EmbeddingError StorageError
""".split()


def defining_module(name: str) -> str:
    """The module a public name of gsr comes from."""
    return gsr._LAZY.get(name, "gsr.errors")


def is_documented_object(value) -> bool:
    """Functions and classes carry their own docstring; constants have an attribute docstring in their module."""
    return inspect.isfunction(value) or inspect.isclass(value)


def attribute_docstring(module: str, name: str) -> tuple[str | None, int]:
    """The string literal right after `name = ...` at the top level of `module` (how mkdocstrings documents a
    constant), and its line."""
    source = Path(importlib.import_module(module).__file__).read_text(encoding="utf-8")
    body = ast.parse(source).body
    for statement, following in zip(body, body[1:]):
        targets = statement.targets if isinstance(statement, ast.Assign) else [getattr(statement, "target", None)]
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            if isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant):
                if isinstance(following.value.value, str):
                    return inspect.cleandoc(following.value.value), following.lineno
            return None, statement.lineno
    return None, 0


def docstring_of(name: str) -> str | None:
    value = getattr(gsr, name)
    if is_documented_object(value):
        return inspect.cleandoc(value.__doc__) if value.__doc__ else None  # never a base class's docstring
    return attribute_docstring(defining_module(name), name)[0]


def sections(doc: str) -> dict[str, str]:
    """{title: body} of the Google-style sections (a `Title:` line after a blank line, with an indented body)."""
    found: dict[str, list[str]] = {}
    current = None
    lines = doc.splitlines()
    for i, line in enumerate(lines):
        match = SECTION.match(line)
        if match and (i == 0 or not lines[i - 1].strip()):
            current = match["title"]
            found[current] = []
        elif current is not None and (line.startswith(" ") or not line.strip()):
            found[current].append(line)
        else:
            current = None
    return {title: textwrap.dedent("\n".join(body)) for title, body in found.items()}


def parameters(function) -> list[str]:
    """The named parameters a caller gives (not self / cls, not *args / **kwargs); none for a built-in signature."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return []
    kinds = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return [p.name for p in signature.parameters.values() if p.kind not in kinds and p.name not in ("self", "cls")]


def returns_something(function) -> bool:
    """Annotated with anything but None, or (unannotated) holding a `return value` or a `yield`."""
    annotation = inspect.signature(function).return_annotation
    if annotation is not inspect.Signature.empty:
        return annotation not in (None, "None")
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    return any(
        isinstance(node, (ast.Yield, ast.YieldFrom)) or (isinstance(node, ast.Return) and node.value is not None)
        for node in ast.walk(tree)
    )


def documented_args(section: str) -> set[str]:
    """The parameter names an `Args:` section lists (`name:` or `name (type):` at its first indentation)."""
    return {m[1] for m in re.finditer(r"^(\w+)(?:\s*\([^\n]*\))?:", section, re.M)}


def check_callable(where: str, function, doc: str | None, example: bool) -> list[str]:
    """What the docstring of a function, method or class (its constructor's parameters) lacks."""
    if not doc or not doc.splitlines()[0].strip():
        return [f"{where}: no docstring summary line"]
    problems = []
    found = sections(doc)
    wanted = parameters(function)
    if wanted:
        missing = set(wanted) - documented_args(found.get("Args", ""))
        if missing:
            problems.append(f"{where}: Args does not document {', '.join(sorted(missing))}")
    if not inspect.isclass(function) and returns_something(function) and not found.get("Returns", "").strip():
        problems.append(f"{where}: no Returns section")
    if example and ">>>" not in found.get("Example", found.get("Examples", "")):
        problems.append(f"{where}: no Example section with a >>> example")
    return problems


def public_methods(cls) -> list[tuple[str, object]]:
    """The public methods (functions) and properties (their getters) a class defines itself, not those it inherits."""
    members = []
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(value, (classmethod, staticmethod)):
            value = value.__func__
        elif isinstance(value, property):
            value = value.fget
        elif isinstance(value, functools.cached_property):
            value = value.func
        if inspect.isfunction(value):
            members.append((name, value))
    return members


def is_property(cls, name: str) -> bool:
    """Whether a class's member is a property (or a cached one): its getter needs a summary, not Args or Returns."""
    return isinstance(vars(cls)[name], (property, functools.cached_property))


def test_every_public_name_is_listed_and_resolves():
    assert set(REQUIRED) <= set(gsr.__all__), sorted(set(REQUIRED) - set(gsr.__all__))
    assert set(gsr._LAZY) <= set(gsr.__all__)
    assert len(gsr.__all__) == len(set(gsr.__all__)), "a name is listed twice"
    for name in NAMES:
        value = getattr(gsr, name)
        assert value is not None, name
        assert value is getattr(importlib.import_module(defining_module(name)), name), name


def test_importing_gsr_stays_light():
    code = "import gsr, sys; assert not {'numpy', 'scipy'} & set(sys.modules), sorted(sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], cwd=PROJECT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.parametrize("name", NAMES)
def test_every_public_name_is_documented(name):
    value = getattr(gsr, name)
    doc = docstring_of(name)
    if not is_documented_object(value):  # a constant: an attribute docstring with a summary and an example
        assert doc and doc.splitlines()[0].strip(), f"{name}: no attribute docstring after its assignment"
        assert ">>>" in sections(doc).get("Example", ""), f"{name}: no Example section"
        return
    problems = check_callable(name, value, doc, example=True)
    if inspect.isclass(value):
        for member, function in public_methods(value):
            where = f"{name}.{member}"
            if is_property(value, member):
                if not (function.__doc__ or "").strip():  # a property: a summary is enough
                    problems.append(f"{where}: no docstring")
                continue
            problems += check_callable(where, function, inspect.getdoc(function), example=False)
    assert not problems, "\n".join(problems)


def rendered_paths() -> list[str]:
    return RENDERED.findall(API_PAGE.read_text(encoding="utf-8"))


def test_every_public_name_is_rendered_in_the_api_page():
    rendered = {}
    for path in rendered_paths():
        module, _, attribute = path.rpartition(".")
        assert attribute in gsr.__all__, f"docs/api.md renders {path}, which is not in gsr.__all__"
        assert getattr(importlib.import_module(module), attribute) is getattr(gsr, attribute), path
        assert attribute not in rendered, f"docs/api.md renders {attribute} twice"
        rendered[attribute] = path
    missing = sorted(set(NAMES) - set(rendered))
    assert not missing, f"not in docs/api.md: {', '.join(missing)}"


def doctests_of(name: str) -> list[doctest.DocTest]:
    """The examples of a name (a class's with its methods'), with the names of `from gsr import *` as globals."""
    globs = {n: getattr(gsr, n) for n in gsr.__all__}
    value = getattr(gsr, name)
    if is_documented_object(value):
        module = inspect.getmodule(value)
        return [t for t in doctest.DocTestFinder().find(value, name, module=module, globs=globs) if t.examples]
    doc, line = attribute_docstring(defining_module(name), name)
    return [doctest.DocTestParser().get_doctest(doc or "", globs, name, defining_module(name), line)]


@pytest.mark.parametrize("name", NAMES)
def test_the_examples_run(name):
    tests = doctests_of(name)
    assert tests and tests[0].examples, f"{name} has no >>> example"
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        runner.run(test, out=out.write)
    assert runner.failures == 0, out.getvalue()
