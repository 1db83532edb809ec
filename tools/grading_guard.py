"""The tamper check each hidden test of a graded assignment runs before it scores an answer.

:func:`tools.build_nbgrader.hidden_test` copies the source of :func:`_posenc_untampered` into
every grade cell's hidden part, so a student's notebook cannot define or replace it: it runs in
the student's kernel, after the student's cells, and returns the reasons the grading code can no
longer be trusted. An exercise is then scored 0 with those reasons. It notices:

- a module of posenc_lib or numpy in ``sys.modules`` that is not the file the import system
  finds for it (a module swapped in ``sys.modules``, or built in the notebook);
- a function or class of those modules, or of a class they define, that comes from anywhere
  but an installed file (a notebook cell, ``exec``): ``Exercise.grade = lambda ...``,
  ``_core._compare = lambda ...``, ``np.allclose = lambda ...``, ``np.testing.assert_* = ...``;
- a function of the course's exercise modules bound under another function's name
  (``_core._compare = _core._compare_bool``);
- an exercise object carrying an attribute of its own (``object.__setattr__(ex, "grade", ...)``)
  or a mistake, judge or answer form made in the notebook;
- a function made in the notebook put into ``builtins``.

It uses only ``builtins`` reached through an import, so a notebook global that shadows a
built-in name does not fool it. What it cannot see: a student who writes a module file to disk
and imports it from there, or who rebuilds a function's code object with a forged file name, or
who changes the data a function reads (a module constant, ``sys.path``) rather than the function.
"""

from __future__ import annotations

import inspect


def _posenc_untampered(exercise_module: str, exercise_name: str) -> list[str]:
    """The reasons this kernel's grading code for ``exercise_module.exercise_name`` cannot be
    trusted; an empty list when nothing was replaced."""
    import builtins as b
    import importlib.machinery as machinery
    import os
    import sys
    import sysconfig

    problems: list[str] = []
    roots: dict[str, str] = {}
    for top in ("posenc_lib", "numpy"):  # where the finders (not sys.modules) locate them
        specs = [finder.find_spec(top, None) for finder in [*sys.meta_path, machinery.PathFinder]
                 if b.hasattr(finder, "find_spec")]
        spec = b.next((s for s in specs if s is not None and s.origin), None)
        if spec is None:
            return [f"the import system finds no {top}"]
        roots[top] = os.path.dirname(os.path.realpath(spec.origin))
    installed = [*roots.values()]
    for kind in ("stdlib", "platstdlib", "purelib", "platlib"):
        installed.append(os.path.realpath(sysconfig.get_paths()[kind]))
    made_by_dataclass = {"__init__", "__repr__", "__eq__", "__hash__", "__setattr__",
                         "__delattr__", "__getstate__", "__setstate__", "__new__"}

    def foreign(value: object, name: str) -> bool:
        """Whether ``value`` (a function, class or object) was made outside installed files."""
        if b.getattr(value, "__module__", None) == "__main__":
            return True
        if b.type(value).__name__ != "function":  # C, Cython, or not a function
            return False
        filename = value.__code__.co_filename
        if filename.startswith("<"):  # exec'd code: dataclass's and namedtuple's methods
            return name not in made_by_dataclass
        path = os.path.realpath(filename)
        return not b.any(path.startswith(root + os.sep) for root in installed)

    def scan(where: str, namespace: dict, exercises: bool) -> None:
        for name, value in b.list(namespace.items()):
            inner = b.getattr(value, "__func__", b.getattr(value, "fget", value))
            if foreign(inner, name):
                problems.append(f"{where}.{name} was replaced in the notebook")
            elif (exercises and b.type(inner).__name__ == "function"
                  and inner.__module__ == where and inner.__name__ not in (name, "<lambda>")):
                problems.append(f"{where}.{name} is now {inner.__name__}")
            if (b.isinstance(value, b.type) and b.getattr(value, "__module__", "") == where
                    and not name.startswith("__")):
                scan(f"{where}.{name}", b.dict(vars(value)), exercises)

    for name, module in b.sorted(sys.modules.items(), key=lambda item: item[0]):
        top = name.split(".")[0]
        if top not in roots or module is None:
            continue
        path = b.getattr(module, "__file__", None)
        if (b.type(module).__name__ != "module" or b.type(path) is not b.str
                or not os.path.realpath(path).startswith(roots[top] + os.sep)):
            problems.append(f"sys.modules[{name!r}] is not the installed {name}")
            continue
        scan(name, b.dict(vars(module)), name.startswith("posenc_lib.exercises"))
    for name, value in b.list(vars(b).items()):
        if foreign(value, name):  # IPython's own functions (display, ...) are installed files
            problems.append(f"builtins.{name} was replaced in the notebook")
    module = sys.modules.get(exercise_module)
    exercise = b.getattr(module, exercise_name, None)
    fields = b.getattr(b.type(exercise), "__dataclass_fields__", {})
    if not b.type(exercise).__module__.startswith("posenc_lib.exercises") or not fields:
        problems.append(f"{exercise_module}.{exercise_name} is not the course's exercise")
    else:
        own = b.sorted(b.set(vars(exercise)) - b.set(fields))
        if own:
            problems.append(f"{exercise_name} was given attributes of its own: {own}")
        parts = [*exercise.mistakes, *exercise.shortcuts]
        functions = [exercise.judge if b.hasattr(exercise, "judge") else None,
                     exercise.answer_form, *(b.getattr(m, "value", None) for m in parts)]
        if b.any(foreign(item, "") for item in [*parts, *functions] if item is not None):
            problems.append(f"a mistake, shortcut or judge of {exercise_name} was made in the "
                            "notebook")
    return problems


GUARD_SOURCE = inspect.getsource(_posenc_untampered)
"""The function's source, as the hidden tests hold it."""
