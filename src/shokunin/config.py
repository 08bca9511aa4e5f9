"""Settings, read from the environment (prefix ``SHOKUNIN_``) and an optional ``.env`` file.

Every field's ``Field(description=...)`` is its documentation: docs/settings.md's table is
generated from these fields when the docs site is built (docs/hooks/settings_page.py).
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PACKAGE_DIR = Path(__file__).resolve().parent
MIN_TOKEN_CHARS = 16


def _memory_gib() -> int:
    """This machine's memory in GiB (8 if unknown), to size the sandbox's defaults."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            return int(f.readline().split()[1]) >> 20  # MemTotal comes first, in KiB
    except (OSError, ValueError, IndexError):
        return 8


# What a live kernel costs after a typical Analyst cell (read a CSV, group, plot), in MB of
# PSS, forked from the template (True) or cold: bench/kernel_density.py, 100 kernels.
KERNEL_COST_MB = {True: 40, False: 100}
KERNEL_HEADROOM = 4  # room for what a thread's data adds to a kernel
MAX_KERNELS = 512


def default_max_kernels(template: bool) -> int:
    """How many kernels the default cap allows on this machine, forked from the template or
    cold."""
    budget = KERNEL_COST_MB[template] * KERNEL_HEADROOM
    return min(MAX_KERNELS, max(2, _memory_gib() * 1024 // budget))


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="SHOKUNIN_", env_file=".env", extra="ignore", env_nested_delimiter="__",
        hide_input_in_errors=True,  # a bad secret setting must not be echoed into a log
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
    redis_url: SecretStr | None = Field(  # secret: a Redis URL may hold a password
        None,
        description="Redis URL (`redis://[:password@]host:6379/0`) of the event bus shared by "
        "several `shokunin serve` processes, so any of them can follow a run another started; "
        "unset: the in-process bus of one process, no Redis.",
    )
    redis_namespace: str = Field(
        "shokunin", pattern=r"^[A-Za-z0-9_.-]{1,64}$",
        description="Prefix of this deployment's Redis channels (`<namespace>:run:<run id>`), "
        "so two deployments can share one Redis: letters, digits, `_`, `.`, `-`.",
    )
    queue_url: SecretStr | None = Field(  # secret: the URL may hold a password
        None,
        description="Job queue (SAQ) that sends runs to `shokunin worker` processes: "
        "`postgresql://user:pw@host:5432/db` (durable, in the database; recommended) or "
        "`redis://host:6379/0`. Unset: every run runs in the process that received it.",
    )
    worker_concurrency: int = Field(
        10, ge=1, le=1000,
        description="Runs one `shokunin worker` takes from the shared queue at a time (and "
        "as many again from its own: runs of threads whose kernel it holds).",
    )
    run_lease_seconds: float = Field(
        10.0, ge=1.0, le=600.0,
        description="How long a process vouches for the runs it runs (renewed every fifth of "
        "it). A run whose process died is taken over by another after at most this long (at "
        "once when the dead process was on the same machine), and a cancel asked of another "
        "process takes effect within a fifth of it.",
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
    mcp_config: Path = Field(
        Path("./userdata/mcp.json"), description="MCP servers whose tools shokunin uses, in "
        "the desktop clients' form: `{\"mcpServers\": {\"name\": {\"command\", \"args\", "
        "\"env\"} or {\"url\", \"headers\"}}}`. No file, no servers.")
    mcp_max_result_mb: float = Field(
        4.0, gt=0, description="Most text and binary content one MCP tool result may bring, "
        "in MiB; past it the text is cut and the files are left out, with a note saying so.")
    map_dir: Path = Field(
        PACKAGE_DIR / "data" / "map", description="Map package folder shown by the Workbench."
    )
    sample_db: Path = Field(
        PACKAGE_DIR / "data" / "sample.db", description="SQLite database the sql_engine tool reads."
    )
    sql_max_rows: int = Field(200, description="Most rows a sql_engine answer shows.")
    sql_max_result_bytes: int = Field(
        262144, description="Most bytes of values a sql_engine answer shows (the rest is cut, "
        "and the answer says so)."
    )
    sql_max_value_bytes: int = Field(
        1_000_000, description="Largest string or blob a SQL query may build "
        "(SQLITE_LIMIT_LENGTH); beyond it the query stops with an error."
    )
    sql_timeout_sec: float = Field(10.0, description="A SQL query is stopped after this.")
    ws_max_message_bytes: int = Field(65536, description="Largest accepted WS /ws message.")
    gc_interval_sec: float = Field(
        60.0, ge=0, le=3600, allow_inf_nan=False,
        description="`shokunin serve` runs Python's cyclic garbage collector this often (1 to "
        "3600; sooner once the process grew 256 MB, or a million new objects piled up) "
        "instead of every few hundred allocations; 0 leaves Python's own schedule.")
    auth_token: SecretStr | None = Field(
        None, description="Admin token (16+ characters): with it, or once any API key exists "
        "(`shokunin auth create-key`), every route but /health and /login needs a token.")
    allowed_origins: list[str] = Field(
        default_factory=list,
        description="Origins besides the server's own (JSON list, e.g. "
        '`["https://app.example.com"]`) that may open the WebSocket, send POSTs and read '
        "the API cross-origin (CORS). A server bound to loopback also accepts loopback origins "
        "on any port (a client's own dev server proxying to it), without CORS.")
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host names the server answers to besides loopback ones (`localhost`, "
        "`*.localhost`, `127.0.0.1`, `[::1]`), any port (JSON list, e.g. "
        '`["shokunin.example.com"]`; `".example.com"` for a domain and its subdomains; '
        '`["*"]` turns the check off). Others get `400 forbidden_host` (DNS rebinding).')
    header_timeout_sec: float = Field(
        10.0, gt=0, le=300, description="Seconds a client has to send a request's headers, on a "
        "new connection or after the previous answer on a kept-alive one, and the longest "
        "pause inside a body; then it gets `408` and the connection is closed (half-sent "
        "requests would hold it for ever).")
    max_connections_per_client: int = Field(
        1024, ge=1, description="Connections one client address may hold open at once; more "
        "are answered `503` and closed.")
    max_streams_per_client: int = Field(
        512, ge=1, description="Live connections (SSE streams, WebSockets, Socket.IO sessions) "
        "one client address may hold at once; more are refused with `429 too_many_streams`.")
    max_streams_per_key: int = Field(
        512, ge=1, description="Live connections one token (the admin token or an API key) may "
        "hold at once, from any address; more are refused with `429 too_many_streams`.")
    body_timeout_sec: float = Field(
        300.0, gt=0, le=3600, description="Seconds a client has to send a whole request body, "
        "however steadily it sends (pauses just under the header timeout would hold the "
        "connection for ever); then it gets `408` and the connection is closed.")
    forwarded_allow_ips: list[str] = Field(
        default_factory=list, description="Addresses of the reverse proxies whose "
        "`X-Forwarded-For`/`X-Forwarded-Proto` are believed (JSON list of IPs or networks, "
        'e.g. `["127.0.0.1"]` behind a local proxy; `["*"]` trusts any peer). Empty: no '
        "one's, the connection's peer is the client (the per-address limits count it).")
    max_body_bytes: int = Field(
        4 * 1024 * 1024, gt=0, description="Largest accepted HTTP request body (413 beyond).")
    max_upload_bytes: int = Field(
        256 * 1024 * 1024, gt=0, description="Largest accepted body on upload (multipart) routes.")
    sandbox_memory_mb: int = Field(2048, description="Address-space limit of a sandbox kernel.")
    sandbox_cpu_sec: int = Field(600, description="CPU-time limit of a sandbox kernel.")
    sandbox_max_procs: int = Field(
        256, description="Process limit (RLIMIT_NPROC) of a sandbox kernel."
    )
    sandbox_file_mb: int = Field(256, description="Largest file a sandbox kernel may write.")
    sandbox_tmp_mb: int = Field(
        256, gt=0, description="Size of each of a sandbox kernel's private /tmp and /dev/shm "
        "(a tmpfs each, in memory, removed with the kernel).")
    sandbox_weak_walls: bool = Field(
        False, description="Run Python even where a kernel cannot get a filesystem of its own "
        "(a normal user's server on a system without unprivileged user namespaces): kernels "
        "then see the host's files, limited by Landlock and seccomp only. Off: Python is "
        "refused there, and the start-up log, /health and the UI say why.")
    sandbox_idle_sec: float = Field(900.0, description="Idle kernels are shut down after this.")
    sandbox_pool_size: int = Field(1, description="Pre-started kernels kept warm.")
    sandbox_template: bool = Field(
        True, description="Fork each kernel from a template process that imported pandas, "
        "NumPy, matplotlib and ipykernel once: kernels share those pages and start in tens "
        "of milliseconds. Off: each kernel starts an interpreter of its own (about 1.3 s).")
    sandbox_max_kernels: int = Field(
        default_factory=lambda data: default_max_kernels(data["sandbox_template"]),
        description="Kernels held by threads at once, all clients together (default: what "
        f"the memory holds at {KERNEL_HEADROOM} times a kernel's cost after a typical "
        f"Analyst cell, {KERNEL_COST_MB[True]} MB forked from the template, "
        f"{KERNEL_COST_MB[False]} MB cold; 2 to {MAX_KERNELS}). Beyond it an idle kernel is "
        "shut down, else the cell waits.",
    )
    sandbox_max_kernels_per_owner: int = Field(
        4, description="Kernels one client (the `owner` a caller passes) may hold at once."
    )
    sandbox_queue_sec: float = Field(
        30.0, description="How long a cell waits for a kernel beyond the caps before it is "
        "refused with `SandboxBusy`."
    )
    sandbox_min_free_mb: int = Field(
        default_factory=lambda: max(256, _memory_gib() * 1024 // 10),
        description="Below this much available memory (MemAvailable), idle kernels are shut "
        "down at once, least recently used first (default: a tenth of the memory).",
    )
    sandbox_allowed_imports: list[str] = Field(
        default_factory=lambda: [
            "numpy", "pandas", "matplotlib", "seaborn", "scipy", "sklearn", "statsmodels",
            "math", "statistics", "datetime", "json", "re", "collections", "itertools",
            "functools", "random", "decimal", "fractions", "string", "textwrap", "time",
            "calendar", "operator", "dataclasses", "typing", "enum", "heapq", "bisect",
            "copy", "pprint", "unicodedata", "csv", "io", "matplotlib_fontja",
            "japanize_matplotlib",
        ],
        description="Top-level modules model-written code may import.",
    )

    analyst_max_upload_mb: float = Field(
        200.0, gt=0, description="Largest file `POST /api/analyst/datasets` accepts, in MB "
        "(413 beyond; `SHOKUNIN_MAX_UPLOAD_BYTES` still bounds every upload).")
    analyst_pandas_max_mb: float = Field(
        200.0, gt=0, description="Largest estimated in-memory size (MB, 6x the file) of a "
        "CSV/TSV profiled with pandas; larger ones are converted to UTF-8 and go through DuckDB.")
    analyst_parse_memory_mb: float = Field(
        1024.0, gt=0, description="Memory (MB) the child process that parses, profiles or "
        "previews one upload may add; past it the upload is refused as too large when expanded.")
    analyst_parse_seconds: float = Field(
        300.0, gt=0, description="CPU and wall-clock seconds that child may take before it is "
        "killed and the upload refused as taking too long.")
    analyst_parse_children: int = Field(
        2, ge=1, description="How many of those child processes may run at once (so together "
        "they use at most this many times SHOKUNIN_ANALYST_PARSE_MEMORY_MB); the other uploads "
        "and previews wait for one to end.")
    analyst_xlsx_max_expanded_mb: float = Field(
        512.0, gt=0, description="Largest size (MB) an .xlsx may expand to, read from its zip "
        "directory before it is parsed.")
    analyst_xlsx_max_ratio: float = Field(
        200.0, gt=1, description="Most an .xlsx member larger than 1 MiB may expand per "
        "compressed byte (a zip bomb's ratio is in the thousands).")
    knowledge_dir: Path = Field(
        PACKAGE_DIR / "data" / "knowledge" / "price_pass_through",
        description="Documents of the Advisor's knowledge base (md, txt, html, pdf); indexed "
        "at server start and by `shokunin kb ingest`.")
    knowledge_index: Path | None = Field(
        None, description="The knowledge index file; default `<data_dir>/knowledge.sqlite`.")
    knowledge_embedder: str | None = Field(
        None, description="Dense retrieval plug-in, `module:function` (e.g. "
        "`shokunin.knowledge.dense:sentence_transformers`); off by default.")
    knowledge_embedding_model: Path | None = Field(
        None, description="Local folder of the embedding model; never downloaded.")
    advisor_playbook: Path = Field(
        PACKAGE_DIR / "data" / "advisor" / "price_pass_through" / "playbook.yaml",
        description="The Advisor's playbook: the steps of the process it guides (YAML).")
    studio_pipeline: Path = Field(
        PACKAGE_DIR / "data" / "studio" / "pipeline.yaml",
        description="The Studio's pipeline (YAML): phases, agents, dependencies, checkpoints, "
        "retries and worker fan-out. New projects use it; a project keeps the one it began with.")
    analyst_max_attempts: int = Field(
        3, ge=1, le=10, description="Cells the Analyst runs for one question before it reports "
        "what failed (its fix loop).")

    @property
    def knowledge_index_path(self) -> Path:
        return self.knowledge_index or self.data_dir / "knowledge.sqlite"

    @model_validator(mode="after")
    def _absolute_paths(self) -> Settings:
        """Every path absolute, once, as it loads: paths cross process boundaries (a kernel,
        a worker, a tool's process) whose working folder is not the server's, where
        ``./data`` would name another folder."""
        for name in type(self).model_fields:
            value = getattr(self, name)
            if isinstance(value, Path):
                value = value.resolve()
            elif isinstance(value, list) and value and all(isinstance(v, Path) for v in value):
                value = [v.resolve() for v in value]
            else:
                continue
            self.__dict__[name] = value  # not "set by the user": model_fields_set stays
        return self

    @field_validator("auth_token")
    @classmethod
    def _long_enough(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and len(value.get_secret_value().strip()) < MIN_TOKEN_CHARS:
            raise ValueError(f"must be at least {MIN_TOKEN_CHARS} characters "
                             "(try: python -c 'import secrets; print(secrets.token_urlsafe(32))')")
        return value

    @field_validator("gc_interval_sec")
    @classmethod
    def _whole_seconds(cls, value: float) -> float:
        if 0 < value < 1:  # full collections back to back would stall the server
            raise ValueError("must be 0 (Python's own schedule) or at least 1 second")
        return value

    @field_validator("allowed_origins")
    @classmethod
    def _origins(cls, value: list[str]) -> list[str]:
        origins = []
        for origin in value:
            parsed = urlsplit(origin.strip().lower())
            if parsed.scheme not in ("http", "https") or not parsed.netloc or parsed.path.strip(
                    "/") or parsed.query or parsed.fragment or "*" in origin:
                raise ValueError(f"{origin!r} is not an origin like https://host[:port]")
            origins.append(f"{parsed.scheme}://{parsed.netloc}")
        return origins

    @field_validator("allowed_hosts")
    @classmethod
    def _hosts(cls, value: list[str]) -> list[str]:
        for host in value:
            if not host.strip() or any(c in host for c in "/@?# ") or (
                    "*" in host and host.strip() != "*"):
                raise ValueError(f"{host!r} is not a host name like app.example.com, "
                                 ".example.com or *")
        return [host.strip().lower() for host in value]

    @cached_property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{(self.data_dir / 'shokunin.db').resolve()}"

    @property
    def builtin_tools_dir(self) -> Path:
        return PACKAGE_DIR / "tools" / "builtin"
