"""Issue 32 item 2, across the course: notebooks 01-09 each have at least two build steps on the
main path, and the cells after each step use the function it adopted."""

from __future__ import annotations

import re

import pytest

from tests.test_course_structure import lesson_cells
from tools.notebook_cells import NOTEBOOKS, load, source

# a build step's check: ``my_x = nbNN.steps.<name>.check(x_by_me)`` (or, until 05-09 are
# converted, ``my_x = adopt(x_by_me, ...)``)
ADOPTED = re.compile(r"^(\w+)\s*=\s*(?:adopt\(|nb\d\d\.steps\.\w+\.check\()", re.M)


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if "01" <= p.name[:2] <= "09"],
                         ids=lambda p: p.name[:2])
def test_two_build_steps_whose_functions_the_lesson_uses(path) -> None:
    cells = lesson_cells(load(path)["cells"])
    steps = [(i, name) for i, c in enumerate(cells) if c["cell_type"] == "code"
             for name in ADOPTED.findall(source(c))]
    step_cells = {i for i, _ in steps}
    assert len(step_cells) >= 2, f"{path.name}: build steps in cells {sorted(step_cells)}"
    for i, name in steps:
        rest_of_cell = source(cells[i]).split(f"{name} = ", 1)[1].split(")\n", 1)[-1]
        after = [rest_of_cell] + [source(c) for c in cells[i + 1:] if c["cell_type"] == "code"]
        assert any(re.search(rf"\b{name}\(", text) for text in after), (
            f"{path.name}: nothing after its build step calls {name}")
        assert "the cells below use yours" in "".join(
            "".join(o.get("text", "")) for o in cells[i].get("outputs", [])), (path.name, name)
