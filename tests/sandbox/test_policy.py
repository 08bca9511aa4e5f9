"""The AST policy on its own: what it lets through and what it refuses, with line and reason."""

from __future__ import annotations

import pytest

from shokunin.config import Settings
from shokunin.sandbox import PolicyViolation, check_policy
from tests.sandbox.corpus import BLOCKED
from tests.sandbox.escape_survey import Finding, python_entry_points

ALLOWED = Settings(data_dir="/nonexistent").sandbox_allowed_imports

FINE = [
    "import pandas as pd\ndf = pd.DataFrame({'a': [1, 2]})\ndf.describe()",
    "import numpy as np\nnp.arange(10).reshape(2, 5).sum(axis=0)",
    "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.title('売上')",
    "print('{:.2f} {name}'.format(3.14159, name='pi'))",
    "x = f'{3.0:.1f}'\ngetattr(x, 'upper')()",
    "import io\nimport pandas as pd\npd.read_csv(io.StringIO('a,b\\n1,2'))",
    "import pandas as pd\npd.read_csv('data/sales.csv')",
    "class A:\n    def __init__(self):\n        super().__init__()\n        self.x = 1\nA().x",
    "if __name__ == '__main__':\n    print(pd.__version__)",
    "from collections import Counter\nCounter('abca').most_common(1)",
    "import json\njson.dumps({'a': [1, 2]})",
    "import pandas as pd\ny = 2020\npd.DataFrame({'year': [2020]}).query('year == @y')",
    "import numpy as np\nnp.testing.assert_allclose(np.ones(2), [1, 1])",
    "import pandas as pd\npd.testing.assert_frame_equal(pd.DataFrame(), pd.DataFrame())",
    "import numpy as np\nnp.save('a.npy', np.ones(3))\nnp.load('a.npy')",
    "import numpy as np\nnp.lib.stride_tricks.sliding_window_view(np.arange(5), 2)",
    "import matplotlib.pyplot as plt\nplt.style.use('ggplot')\nplt.savefig('p.png')",
    "import pandas as pd\npd.DataFrame({'a': [1]}).plot(backend='matplotlib')",
    "class P:\n    def __repr__(self):\n        return 'P'\n    def __len__(self):\n"
    "        return 0\nP()",
    "from dataclasses import dataclass\n@dataclass\nclass R:\n    x: int = 0\nR()",
]


@pytest.mark.parametrize("code", FINE)
def test_ordinary_analysis_code_passes(code: str) -> None:
    assert check_policy(code, ALLOWED) == []


def test_violation_names_line_and_reason() -> None:
    [violation] = check_policy("x = 1\nimport os\n", ALLOWED)
    assert violation == PolicyViolation(2, "import of 'os' is not allowed (system access)")
    assert str(violation).startswith("line 2: ")


def test_import_outside_the_allow_list_is_refused() -> None:
    [violation] = check_policy("import tensorflow", ALLOWED)
    assert "not in the allow-list" in violation.reason


def test_blocked_module_stays_blocked_even_if_allow_listed() -> None:
    assert check_policy("import os", [*ALLOWED, "os"])


def test_syntax_error_is_the_codes_own_error() -> None:
    with pytest.raises(SyntaxError):
        check_policy("def f(:\n", ALLOWED)


@pytest.mark.parametrize("code", BLOCKED.values(), ids=BLOCKED.keys())
def test_hostile_corpus_is_refused(code: str) -> None:
    try:
        violations = check_policy(code, ALLOWED)
    except SyntaxError:
        return  # shell escapes and magics are not Python: refused as syntax errors
    assert violations


# Findings of the survey the policy lets through on purpose, with the reason.
REVIEWED = {
    ("pandas.core.computation.ops", "BinOp.evaluate"):
        "evaluates pandas expressions; reached only by pd.eval and DataFrame.eval (refused) "
        "and DataFrame.query (checked: literal expression, '@' reads plain variables)",
    ("pandas.core.interchange.from_dataframe", "buffer_to_ndarray"):
        "casts interchange buffers; an object can only offer one by defining __dataframe__ "
        "(refused), and the cast itself is a ctypes call the audit hook refuses",
    ("pandas.errors", "PyperclipWindowsException.__init__"): "Windows only",
    ("collections", "namedtuple"): "evaluates generated code; field names must be identifiers",
    ("dataclasses", "_create_fn"): "executes generated code; field names must be identifiers",
    ("typing", "ForwardRef._evaluate"): "reached only by get_type_hints and ForwardRef "
                                       "(refused)",
}


def _entry_is_refused(finding: Finding) -> bool:
    """Whether model code cannot name the function: its module or the name is refused."""
    name = finding.function.split(".")[0]
    return bool(check_policy(f"import {finding.module}", ALLOWED)) or bool(
        check_policy(f"from {finding.module} import {name}", ALLOWED))


def test_every_escape_the_survey_finds_is_refused() -> None:
    findings = python_entry_points(ALLOWED)
    assert any(f.function == "subprocess_run_for_testing" for f in findings), \
        "the survey no longer finds the known hole: it is broken"
    open_ = [f for f in findings
             if (f.module, f.function) not in REVIEWED and not _entry_is_refused(f)]
    assert open_ == []
