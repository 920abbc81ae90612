"""Pyodide's loader (``pyodide.asm.mjs``), with one step of every start made lazy: the runtime's offset table.

Once the runtime is instantiated, Emscripten's ``updateGOT`` gives each of its 8,834 exported symbols a
``WebAssembly.Global`` in the global offset table (GOT), which only a side module loaded later imports, and
``reportUndefinedSymbols`` then walks them all. Our engine loads no side module. In the trimmed loader the table
keeps each symbol's value and makes its Global the first time anything reads it (the GOT is a ``Proxy``): every
exported function still gets its function-table slot in the same order, every symbol the same value, so a restored
snapshot's function pointers are the ones it was made with. It saves about 10–15 ms of each start, cold or warm.

Then, restoring a snapshot, Pyodide's ``finalizeBootstrap`` runs four snippets of Python source to get a few objects
(a fresh dict, ``importlib``, ``__main__.__dict__``, ``builtins.__dict__``) and imports ``_pyodide_core``, which the
snapshot holds already: the first source parsed after the restore, whose parser and compiler run for the first time in
this instance. The trimmed loader gets the same objects by calls (``__import__``, ``dict``) and fills the dict with the
names the snippets bind, so that nothing is parsed before the first answer: about 15–25 ms of each start. A normal
boot, and the build that makes the snapshot, run Pyodide's code unchanged (reports/measurements.md).

Pinned: the trim applies only to the loader it was checked against (its SHA-256 below). Another Pyodide fails the
build here until the trim is checked again, by ``tests/node/loader_check.mjs``: the runtime's function table, every
symbol's value and the objects the bootstrap keeps equal, restored with Pyodide's loader and with this one.
"""

from __future__ import annotations

import hashlib

# The loader of the Pyodide version the trim was checked against (npm's package, as package-lock.json pins it).
CHECKED_SHA256 = "f7cdc8ece80678ceb712f8e65ebe6d3a83203a180c399865f49612a051693635"

# A symbol's Global is made from its kept value when first read: GOT[name], `name in GOT`.
LAZY_TABLE = (
    "var GOTLazy=new Map();"
    "var GOT=new Proxy({},{"
    "get(table,name,receiver){var entry=Reflect.get(table,name,receiver);"
    "if(entry===undefined&&GOTLazy.has(name)){"
    'entry=table[name]=new WebAssembly.Global({value:"i32",mutable:true},GOTLazy.get(name));GOTLazy.delete(name)}'
    "return entry},"
    "has(table,name){return Reflect.has(table,name)||GOTLazy.has(name)}});"
)

# The first lines of Pyodide's finalizeBootstrap, after its `t&&Wr();` (t: the snapshot's state, when restoring one).
BOOTSTRAP = (
    'let[r,n]=API.rawRun("import _pyodide_core");r&&API.fatal_loading_error(`Failed to import _pyodide_core\\n`,n),'
    'API.runPythonInternal_dict=API._pyodide._base.eval_code("{}"),'
    'API.importlib=API.runPythonInternal("import importlib; importlib");let o=API.importlib.import_module;'
    'API.sys=o("sys"),API.os=o("os");let i=API.runPythonInternal("import __main__; __main__.__dict__"),'
    's=API.runPythonInternal("import builtins; builtins.__dict__");'
)
# Pyodide's lines, declaring nothing the code after them reads: i and s declared before, o with var.
BOOTSTRAP_AS_PUBLISHED = BOOTSTRAP.replace("let o=", "var o=").replace("let i=", "i=")
BOOTSTRAP_BY_CALLS = (
    'let B=API._pyodide._base.__builtins__,imp=B.get("__import__"),Dict=B.get("dict"),main=imp("__main__"),'
    'builtins=imp("builtins");'
    "API.runPythonInternal_dict=Dict();API.importlib=imp(\"importlib\");var o=API.importlib.import_module;"
    'API.sys=o("sys"),API.os=o("os");i=main.__dict__,s=builtins.__dict__;'
    'for(let[k,v]of[["__builtins__",s],["importlib",API.importlib],["__main__",main],["builtins",builtins]])'
    "API.runPythonInternal_dict.set(k,v);"
    # i and s are borrowed from main and builtins, which therefore stay.
    "[B,imp,Dict].forEach(p=>p.destroy());"
)

# (what Pyodide's loader says, what the trimmed one says): each must occur exactly once.
EDITS = (
    ("var GOT={};", LAZY_TABLE),
    # updateGOT: a symbol nothing has asked for yet keeps its value (a number, or a Global's: `+` reads it as
    # assigning it to an i32 Global would), not a Global of its own.
    ('GOT[symName]??=new WebAssembly.Global({value:"i32",mutable:true});GOT[symName].value=newValue',
     "if(GOT[symName])GOT[symName].value=newValue;else GOTLazy.set(symName,+newValue)"),
    # finalizeBootstrap, restoring a snapshot (t): the same objects without parsing, the dict holding what the
    # snippets would have bound in it (exec adds __builtins__ first); a normal boot runs Pyodide's own lines.
    (BOOTSTRAP, "let i,s;if(t){" + BOOTSTRAP_BY_CALLS + "}else{" + BOOTSTRAP_AS_PUBLISHED + "}"),
)


class LoaderChangedError(RuntimeError):
    """The loader is not the one the trim was checked against."""


def trim_loader(source: bytes) -> bytes:
    """The trimmed loader, from Pyodide's own; raises LoaderChangedError for any other loader."""
    found = hashlib.sha256(source).hexdigest()
    if found != CHECKED_SHA256:
        raise LoaderChangedError(
            f"Pyodide's pyodide.asm.mjs is not the one sitebuild/trim_loader.py was checked against (sha256 {found}):"
            " check its edits against the new loader, run tests/node/loader_check.mjs, then update CHECKED_SHA256"
        )
    text = source.decode()
    for old, new in EDITS:
        if text.count(old) != 1:
            raise LoaderChangedError(f"expected once in pyodide.asm.mjs, found {text.count(old)} times: {old}")
        text = text.replace(old, new)
    return text.encode()
