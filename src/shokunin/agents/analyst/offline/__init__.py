"""The Analyst's offline brain: a question (Japanese or English) is bound word by word to the
table's columns and values (``binding``), read into a typed query (``reader``, ``query``) and
written as pandas code (``code``), so every number comes from running it. What it could not
use is said; what it cannot do offline is not answered."""

from shokunin.agents.analyst.offline.binding import is_ja
from shokunin.agents.analyst.offline.planner import explain, plan
from shokunin.agents.analyst.offline.query import Clarify, NotUnderstood, Query, Task

__all__ = ["Clarify", "NotUnderstood", "Query", "Task", "explain", "is_ja", "plan"]
