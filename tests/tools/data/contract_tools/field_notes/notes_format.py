"""Helpers of the field_notes tool (imported from its folder)."""


def heading(title: str) -> str:
    return f"# {title}\n\n"
