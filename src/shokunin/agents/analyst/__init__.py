"""The Analyst face's dataset layer (seed 004): reading uploaded tables, detecting their
encoding and dialect, profiling them (pandas, or DuckDB when large) and keeping them."""

from shokunin.agents.analyst.agent import MAX_QUESTION_CHARS, NAME, UnknownDataset
from shokunin.agents.analyst.dataset import (
    MAX_HEADER_ROW,
    ReadOptions,
    TableSource,
    detect_source,
    profile_file,
)
from shokunin.agents.analyst.datasets import Datasets
from shokunin.agents.analyst.encoding import EncodingGuess, detect_encoding, text_encoding
from shokunin.agents.analyst.errors import DatasetError, NotATable, UnreadableTable
from shokunin.agents.analyst.profile import ColumnProfile, DatasetProfile, ValueCount
from shokunin.agents.analyst.sniff import Dialect, sniff
from shokunin.agents.analyst.storage import DatasetRecord, DatasetStorage, Preview, load_record

__all__ = ["ColumnProfile", "DatasetError", "DatasetProfile", "DatasetRecord", "DatasetStorage",
    "Datasets", "Dialect", "EncodingGuess", "MAX_HEADER_ROW", "MAX_QUESTION_CHARS", "NAME",
    "NotATable", "Preview",
    "ReadOptions", "TableSource", "UnknownDataset", "UnreadableTable", "ValueCount",
    "detect_encoding", "detect_source", "load_record", "profile_file", "sniff", "text_encoding"]
