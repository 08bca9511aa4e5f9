"""The Analyst face's dataset layer (seed 004): reading uploaded tables, detecting their
encoding and dialect, profiling them (pandas, or DuckDB when large) and keeping them.

Names are imported on first use (``lazy_loader``): the uploads' parser process imports the
readers (``isolated``) and not the agent's graph.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach(__name__, submod_attrs={
    "agent": ["MAX_QUESTION_CHARS", "NAME", "UnknownDataset"],
    "dataset": ["MAX_HEADER_ROW", "ReadOptions", "TableSource", "detect_source", "profile_file"],
    "datasets": ["Datasets"],
    "encoding": ["EncodingGuess", "detect_encoding", "text_encoding"],
    "errors": ["DatasetError", "NotATable", "UnreadableTable"],
    "profile": ["ColumnProfile", "DatasetProfile", "ValueCount"],
    "sniff": ["Dialect", "sniff"],
    "storage": ["DatasetRecord", "DatasetStorage", "Preview", "load_record"],
})
