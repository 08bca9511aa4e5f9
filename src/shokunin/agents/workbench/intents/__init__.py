"""Read a Workbench request (English or Japanese) into tool calls, without a model.

The offline brain's grammar: a request is cut into clauses (text.py), each clause's
rooms, floors, colours, directions and bitmaps are found against the map (mentions.py),
and each clause becomes tool calls or a note saying plainly what cannot be done
(planner.py; database questions in questions.py). Deterministic, and linear in the text.
"""

from shokunin.agents.workbench.intents.planner import Call, Plan, Step, plan, random_points
from shokunin.agents.workbench.intents.text import MAX_CHARS

__all__ = ["MAX_CHARS", "Call", "Plan", "Step", "plan", "random_points"]
