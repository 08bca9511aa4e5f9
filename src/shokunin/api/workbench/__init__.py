"""The Workbench face (seed 000): ``WS /ws``, the map over HTTP, and its wire form."""
