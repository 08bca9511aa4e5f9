"""The Workbench agent's tools, built per run around its RunContext."""

from shokunin.agents.workbench.tools.run_python import ImageHold
from shokunin.agents.workbench.tools.save_data import safe_csv_name, write_csv
from shokunin.agents.workbench.tools.sql_engine import (
    QueryLimitExceeded,
    QueryRejected,
    SqlLimits,
    run_query,
    schema_of,
)
from shokunin.agents.workbench.tools.toolbox import build_toolbox, own_declarations

__all__ = ["ImageHold", "QueryLimitExceeded", "QueryRejected", "SqlLimits", "build_toolbox",
           "own_declarations", "run_query", "safe_csv_name", "schema_of", "write_csv"]
