"""The AST policy on its own: what it lets through and what it refuses, with line and reason."""

from __future__ import annotations

import pytest

from shokunin.config import Settings
from shokunin.sandbox import PolicyViolation, check_policy

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
