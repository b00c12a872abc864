"""Loading an engine's planner functions from a source checkout without importing the engine
(docs/live.md, "import shims"): the named top-level functions and classes (and static methods
of named classes) are cut out of the module's source with `ast` and executed verbatim in one
namespace. What they need from the rest of the engine comes from `provided` (real modules such
as torch and numpy, or functions cut out of other files the same way); any other name they
mention is a placeholder class, so an annotation such as `MLADCPManager | None` still evaluates,
and is listed in `Loaded.placeholders` (a placeholder that is called fails loudly).
"""

import ast
import builtins
import os
import sys
import types


class Missing(Exception):
    """The source has no such file or definition: the adapter exits 4 naming it."""


class Loaded:
    def __init__(self, namespace, placeholders, files):
        self.namespace = namespace
        self.placeholders = sorted(placeholders)
        self.files = files

    def __getitem__(self, name):
        return self.namespace[name]


def _parse(path):
    if not os.path.isfile(path):
        raise Missing(f"no file {path}")
    with open(path, encoding="utf-8") as f:
        return ast.parse(f.read(), filename=path)


def _find(tree, path, name):
    """`name` or `Class.method` (its decorators dropped: a static method becomes a function)."""
    owner, _, member = name.partition(".")
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == owner:
            if not member:
                return node
            for sub in node.body:
                if isinstance(sub, ast.FunctionDef) and sub.name == member:
                    sub.decorator_list = []
                    return sub
    raise Missing(f"{os.path.basename(path)} has no {name}")


def _free_names(nodes):
    loads, stores = set(), set()
    for n in nodes:
        stores.add(n.name)
        for sub in ast.walk(n):
            if isinstance(sub, ast.Name):
                (loads if isinstance(sub.ctx, ast.Load) else stores).add(sub.id)
            elif isinstance(sub, (ast.FunctionDef, ast.ClassDef)):
                stores.add(sub.name)
            elif isinstance(sub, ast.arg):
                stores.add(sub.arg)
    return loads - stores - set(dir(builtins))


def load(parts, provided, module_name="chunkproof_adapters.loaded"):
    """parts: [(path, [names...]), ...] in dependency order; provided: {name: object}. Each
    file's definitions are compiled under its own path, so a traceback names the engine's file
    and line."""
    cut = []
    for path, names in parts:
        tree = _parse(path)
        cut.append((path, [_find(tree, path, n) for n in names]))
    module = types.ModuleType(module_name)
    sys.modules[module_name] = module  # dataclasses look their class's module up
    namespace = module.__dict__
    namespace.update(provided)
    placeholders = set()
    for name in _free_names([n for _, nodes in cut for n in nodes]):
        if name not in namespace:
            namespace[name] = type(name, (), {"__doc__": "chunkproof import shim placeholder"})
            placeholders.add(name)
    for path, nodes in cut:
        exec(compile(ast.Module(body=nodes, type_ignores=[]), path, "exec"), namespace)
    return Loaded(namespace, placeholders, [p for p, _ in cut])
