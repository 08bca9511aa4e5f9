"""Settings, read from the environment (prefix ``SHOKUNIN_``) and an optional ``.env`` file.

Every field is documented in README.md's settings table; a test keeps the two in step.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

PACKAGE_DIR = Path(__file__).resolve().parent


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="SHOKUNIN_", env_file=".env", extra="ignore", env_nested_delimiter="__"
    )

    host: str = Field("127.0.0.1", description="Address `shokunin serve` binds to.")
    port: int = Field(8000, description="Port `shokunin serve` listens on.")
    data_dir: Path = Field(
        Path("./data"), description="Folder for the SQLite database, uploads and workspaces."
    )
    database_url: str | None = Field(
        None,
        description="SQLAlchemy async URL; default `sqlite+aiosqlite:///<data_dir>/shokunin.db`. "
        "Use `postgresql+asyncpg://...` for PostgreSQL.",
    )
    model: str = Field(
        "offline",
        description="Chat model spec: `offline`, `openai:gpt-4.1-mini`, `anthropic:...`, "
        "`ollama:qwen2.5`, `scripted:NAME`.",
    )
    model_base_url: str | None = Field(
        None, description="Base URL of an OpenAI-compatible server (vLLM, llama.cpp, LM Studio)."
    )
    model_api_key: SecretStr | None = Field(
        None, description="API key for the model provider (else the provider's own env var)."
    )
    model_timeout_sec: float = Field(
        120.0, gt=0,
        description="Seconds one model request may take (connect, or wait for the next bytes) "
        "before it fails; 429 and 5xx answers are retried.",
    )
    tools_dirs: list[Path] = Field(
        default_factory=lambda: [Path("./tool")],
        description="User tool folders (JSON list); the builtin folder is always loaded first.",
    )
    tool_settings_file: Path = Field(
        Path("./userdata/tool_settings.json"), description="Where tool settings are persisted."
    )
    tool_timeout_sec: float = Field(120.0, description="Default timeout of one tool call.")
    map_dir: Path = Field(
        PACKAGE_DIR / "data" / "map", description="Map package folder shown by the Workbench."
    )
    sample_db: Path = Field(
        PACKAGE_DIR / "data" / "sample.db", description="SQLite database the sql_engine tool reads."
    )
    ws_max_message_bytes: int = Field(65536, description="Largest accepted WS /ws message.")
    sandbox_memory_mb: int = Field(2048, description="Address-space limit of a sandbox kernel.")
    sandbox_cpu_sec: int = Field(600, description="CPU-time limit of a sandbox kernel.")
    sandbox_max_procs: int = Field(
        256, description="Process limit (RLIMIT_NPROC) of a sandbox kernel."
    )
    sandbox_file_mb: int = Field(256, description="Largest file a sandbox kernel may write.")
    sandbox_idle_sec: float = Field(900.0, description="Idle kernels are shut down after this.")
    sandbox_pool_size: int = Field(1, description="Pre-started kernels kept warm.")
    sandbox_allowed_imports: list[str] = Field(
        default_factory=lambda: [
            "numpy", "pandas", "matplotlib", "seaborn", "scipy", "sklearn", "statsmodels",
            "math", "statistics", "datetime", "json", "re", "collections", "itertools",
            "functools", "random", "decimal", "fractions", "string", "textwrap", "time",
            "calendar", "operator", "dataclasses", "typing", "enum", "heapq", "bisect",
            "copy", "pprint", "unicodedata", "csv", "io", "japanize_matplotlib",
        ],
        description="Top-level modules model-written code may import.",
    )

    @cached_property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{(self.data_dir / 'shokunin.db').resolve()}"

    @property
    def builtin_tools_dir(self) -> Path:
        return PACKAGE_DIR / "tools" / "builtin"
