"""nerd's pytest plugin for `nerd index --coverage`: names coverage.py's contexts.

Loaded with `-p nerd_pytest_contexts` into a `coverage run -m pytest` (no
`dynamic_context` setting: this plugin is the only one that switches). Each
test module's import runs in the context `load:PATH`, and each test, its
fixtures' setup and teardown included, in `test:PATH::Class::name[id]`; PATH is
the file's path relative to the working directory (the workspace's root).
What runs between them (conftest files, the session's own fixtures) stays in
the empty context. Writes nothing but the contexts coverage.py records.
"""

import os

import coverage
import pytest


def _switch(context):
    current = coverage.Coverage.current()
    if current is not None:
        current.switch_context(context)


def _relative(path):
    return os.path.relpath(str(path)).replace(os.sep, "/")


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    # A module is imported while it is collected: what that runs is its loading.
    path = getattr(collector, "path", None) or getattr(collector, "fspath", None)
    loading = isinstance(collector, pytest.Module) and path is not None
    if loading:
        _switch("load:" + _relative(path))
    try:
        yield
    finally:
        if loading:
            _switch("")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    path, _, name = item.nodeid.partition("::")
    where = getattr(item, "path", None) or getattr(item, "fspath", None)
    if where is not None:
        path = _relative(where)
    _switch("test:" + path + "::" + name)
    try:
        yield
    finally:
        _switch("")
