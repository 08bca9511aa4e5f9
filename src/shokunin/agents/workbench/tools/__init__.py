"""The Workbench agent's tools: built once per agent, each finding the run that calls it."""

from shokunin.agents.workbench.tools.run_python import CellFailed, ImageHold
from shokunin.agents.workbench.tools.save_data import safe_csv_name, write_csv
from shokunin.agents.workbench.tools.sql_engine import (
    QueryLimitExceeded,
    QueryRejected,
    SqlLimits,
    run_query,
    schema_of,
)
from shokunin.agents.workbench.tools.toolbox import Toolbox, own_declarations

__all__ = ["CellFailed", "ImageHold", "QueryLimitExceeded", "QueryRejected", "SqlLimits", "Toolbox",
           "own_declarations", "run_query", "safe_csv_name", "schema_of", "write_csv"]
