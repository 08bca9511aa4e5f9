"""The deployment files of the scaled-out topology (issue 38): compose.yaml, the Dockerfile,
deploy/ (nginx, systemd, the settings file) and docs/operations.md's "Deploying several
processes".

What they name must exist: every ``SHOKUNIN_*`` is a Settings field, every command a
``shokunin`` command with its options, every web and worker process gets the same settings.
And the real one: Debian's nginx, with deploy/nginx.conf, in front of two real ``shokunin
serve`` processes on PostgreSQL and Redis, carries an SSE stream as it is sent, ``WS /ws``
and a Socket.IO long-polling session (which only ``ip_hash`` keeps on one process).
Docker itself is not run here.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import typer
import yaml
from fastapi.routing import APIRoute, APIWebSocketRoute
from pydantic import AliasChoices, ValidationError

from shokunin.cli import app as cli_app
from shokunin.config import Settings
from tests.backends import PG_ADMIN_URL, postgres_available
from tests.e2e.topology import SLOW_TOOL, in_own_loop, psql, sse
from tests.live_server import LiveServer, free_port
from tests.runs.redis_server import REDIS_URL, redis_available
from tests.tools.conftest import make_tool
from tests.waiting import eventually

pytestmark = pytest.mark.subprocess

try:  # FastAPI >= 0.16x keeps included routers lazily (as tests/api/perimeter/test_auth.py)
    from fastapi.routing import iter_route_contexts
except ImportError:  # pragma: no cover - older FastAPI lists the routes flat
    iter_route_contexts = None

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "compose.yaml"
DOCKERFILE = ROOT / "Dockerfile"
NGINX_CONF = ROOT / "deploy" / "nginx.conf"
UNITS = ROOT / "deploy" / "systemd"
ENV_EXAMPLE = ROOT / "deploy" / "shokunin.env.example"
OPERATIONS = ROOT / "docs" / "operations.md"
SECTION = "## Deploying several processes"
WEB, WORKERS = ("web1", "web2"), ("worker1", "worker2")
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
SETTING = re.compile(r"\bSHOKUNIN_[A-Z0-9_]*[A-Z0-9]")


# -- what the files name ----------------------------------------------------------------

def compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))


def docs_section() -> str:
    text = OPERATIONS.read_text(encoding="utf-8")
    assert SECTION in text, f"docs/operations.md has no {SECTION!r}"
    section = text[text.index(SECTION):]
    end = section.find("\n## ", len(SECTION))
    return section if end < 0 else section[:end]


def setting_env_names() -> set[str]:
    """The environment variable of every Settings field: the prefix and the field's name,
    or, for a field with an alias, the alias alone (pydantic-settings adds no prefix to
    it)."""
    prefix = str(Settings.model_config.get("env_prefix") or "")
    names: set[str] = set()
    for name, field in Settings.model_fields.items():
        aliases: list[str] = []
        for alias in (field.validation_alias, field.alias):
            if isinstance(alias, str):
                aliases.append(alias)
            elif isinstance(alias, AliasChoices):
                aliases += [c for c in alias.choices if isinstance(c, str)]
        names |= {a.upper() for a in aliases} if aliases else {(prefix + name).upper()}
    return names


def named_settings(text: str) -> set[str]:
    """The ``SHOKUNIN_*`` names in ``text``; ``X__Y`` (a nested field's part) is ``X``."""
    return {name.split("__")[0] for name in SETTING.findall(text)}


def test_the_setting_names_are_derived_from_settings() -> None:
    names = setting_env_names()
    assert {"SHOKUNIN_DATABASE_URL", "SHOKUNIN_REDIS_URL", "SHOKUNIN_DATA_DIR",
            "SHOKUNIN_AUTH_TOKEN", "SHOKUNIN_MAX_UPLOAD_BYTES"} <= names
    assert "SHOKUNIN_DATABASE" not in names
    assert named_settings("`SHOKUNIN_A_B__C` and SHOKUNIN_D.") == {"SHOKUNIN_A_B", "SHOKUNIN_D"}


DEPLOY_FILES = ["compose.yaml", "Dockerfile", *sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "deploy").rglob("*") if p.is_file())]


@pytest.mark.parametrize("where", [*DEPLOY_FILES, "docs section"])
def test_every_setting_named_is_a_real_setting(where: str) -> None:
    text = docs_section() if where == "docs section" else (ROOT / where).read_text("utf-8")
    unknown = named_settings(text) - setting_env_names()
    assert not unknown, f"{where} names settings that Settings does not have: {sorted(unknown)}"


def test_compose_runs_the_topology() -> None:
    services = compose()["services"]
    assert {"postgres", "redis", *WEB, *WORKERS, "proxy"} <= set(services)
    assert services["postgres"]["image"].startswith("postgres:")
    assert "healthcheck" in services["postgres"]
    assert services["redis"]["image"].startswith("redis:")
    proxy = services["proxy"]
    assert proxy["image"].startswith("nginx:")
    assert len(proxy["ports"]) == 1  # one published port, the proxy's
    # in place of the image's default server, inside its http {} block
    assert "./deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro" in proxy["volumes"]
    for name in (*WEB, *WORKERS):
        assert "ports" not in services[name], f"{name} publishes a port past the proxy"
    for name in WEB:
        assert services[name]["command"] == ["serve"], name
    for name in WORKERS:
        assert services[name]["command"][0] == "worker", name
    # nginx's upstream is the web services, on the port the image's `serve` listens on
    port = re.search(r"SHOKUNIN_PORT=(\d+)", DOCKERFILE.read_text(encoding="utf-8"))
    assert port is not None
    upstream = re.search(r"upstream\s+shokunin\s*\{([^}]*)\}", NGINX_CONF.read_text("utf-8"))
    assert upstream is not None
    servers = re.findall(r"^\s*server\s+(\S+);", upstream[1], re.M)
    assert sorted(servers) == [f"{name}:{port[1]}" for name in WEB]


def test_every_web_and_worker_process_gets_the_same_settings_and_data() -> None:
    spec = compose()
    services = spec["services"]
    envs = {name: {k: v for k, v in services[name]["environment"].items()
                   if k.startswith("SHOKUNIN_")} for name in (*WEB, *WORKERS)}
    first = envs["web1"]
    for name, env in envs.items():
        assert env == first, f"{name}'s settings differ from web1's"
    for needed in ("SHOKUNIN_DATABASE_URL", "SHOKUNIN_QUEUE_URL", "SHOKUNIN_REDIS_URL",
                   "SHOKUNIN_DATA_DIR", "SHOKUNIN_AUTH_TOKEN"):
        assert needed in first, needed
    assert first["SHOKUNIN_DATABASE_URL"].startswith("postgresql+asyncpg://")
    assert first["SHOKUNIN_QUEUE_URL"].startswith(("postgresql://", "redis://"))
    assert first["SHOKUNIN_HOST"] == "0.0.0.0"
    # A missing token stops compose with a message, never starts a server without one.
    assert re.fullmatch(r"\$\{SHOKUNIN_AUTH_TOKEN:\?[^}]+\}", first["SHOKUNIN_AUTH_TOKEN"])
    # One named volume, at SHOKUNIN_DATA_DIR, for every one of them.
    data_dir = first["SHOKUNIN_DATA_DIR"]
    mounts = {name: [v for v in services[name]["volumes"] if v.split(":")[1] == data_dir]
              for name in envs}
    volumes = {m[0].split(":")[0] for m in mounts.values() if len(m) == 1}
    assert len(volumes) == 1 and all(len(m) == 1 for m in mounts.values()), mounts
    assert volumes <= set(spec.get("volumes") or {}), "the data volume is not a named volume"
    # The sandbox's namespaces and mounts (Dockerfile): the same rights for each.
    for name in envs:
        assert "SYS_ADMIN" in services[name].get("cap_add", []), name


def _click_app() -> Any:
    """The ``shokunin`` command as click sees it (typer may bring its own copy of click:
    groups are told by their ``list_commands``)."""
    group = typer.main.get_command(cli_app)
    assert hasattr(group, "list_commands")
    return group


def _check_command(argv: list[str], where: str) -> None:
    """``argv`` (after ``shokunin``) names a real command, and its options are that
    command's."""
    command = _click_app()
    words = list(argv)
    while hasattr(command, "list_commands"):
        assert words, f"{where}: `shokunin {' '.join(argv)}` names no command"
        name = words.pop(0)
        context = command.make_context("shokunin", [], resilient_parsing=True)
        sub = command.get_command(context, name)
        assert sub is not None, (
            f"{where}: `shokunin {' '.join(argv)}`: {name!r} is not a shokunin command "
            f"(there are: {sorted(command.list_commands(context))})")
        command = sub
    options = {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}
    for word in words:
        if word.startswith("--"):
            option = word.split("=")[0]
            assert option in options, f"{where}: `shokunin {' '.join(argv)}`: no {option}"


def _commands() -> list[tuple[list[str], str]]:
    found: list[tuple[list[str], str]] = []
    services = compose()["services"]
    for name in (*WEB, *WORKERS):
        found.append((list(services[name]["command"]), f"compose.yaml {name}"))
    for unit in sorted(UNITS.glob("*.service")):
        for line in unit.read_text(encoding="utf-8").splitlines():
            if line.startswith("ExecStart="):
                argv = shlex.split(line.removeprefix("ExecStart="))
                assert Path(argv[0]).name == "shokunin", unit.name
                found.append((argv[1:], unit.name))
    docker = DOCKERFILE.read_text(encoding="utf-8")
    entry = re.search(r"^ENTRYPOINT (\[.*\])$", docker, re.M)
    cmd = re.search(r"^CMD (\[.*\])$", docker, re.M)
    assert entry and json.loads(entry[1]) == ["shokunin"], "the image's entry point"
    assert cmd is not None
    found.append((json.loads(cmd[1]), "Dockerfile CMD"))
    section = docs_section()
    for words in re.findall(r"`shokunin ([a-z][\w-]*(?: [a-z][\w-]*)*)", section):
        found.append((words.split(), "docs section"))
    for line in section.splitlines():
        if line.startswith("shokunin "):
            found.append((shlex.split(line, comments=True)[1:], "docs section"))
    return found


def test_every_command_run_is_a_shokunin_command() -> None:
    commands = _commands()
    assert {argv[0] for argv, _ in commands} >= {"serve", "worker"}
    for argv, where in commands:
        _check_command(argv, where)
    # the worker's options the docs section names
    root = _click_app()
    worker = root.get_command(root.make_context("shokunin", [], resilient_parsing=True),
                              "worker")
    options = {opt for param in worker.params for opt in param.opts}
    for option in re.findall(r"`(--[a-z][\w-]*)`", docs_section()):
        assert option in options, f"the docs section names {option}, not an option of worker"


def _unit(name: str) -> dict[str, list[str]]:
    keys: dict[str, list[str]] = {}
    for line in (UNITS / name).read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.startswith(("#", ";", "[")):
            key, _, value = line.partition("=")
            keys.setdefault(key.strip(), []).append(value.strip())
    return keys


def test_the_systemd_units_share_one_settings_file() -> None:
    web, worker = _unit("shokunin-web@.service"), _unit("shokunin-worker@.service")
    assert web["EnvironmentFile"] == worker["EnvironmentFile"] == ["/etc/shokunin/shokunin.env"]
    assert shlex.split(web["ExecStart"][0])[1:] == ["serve", "--port", "%i"]
    assert shlex.split(worker["ExecStart"][0])[1] == "worker"
    assert Path(web["ExecStart"][0].split()[0]).parent == Path(
        worker["ExecStart"][0].split()[0]).parent  # one installation
    # A worker stopped gets its grace (30 s by default) before systemd kills it.
    assert float(worker["TimeoutStopSec"][0].rstrip("s")) > 30


def _env_file(path: Path) -> dict[str, str]:
    """KEY=value lines as systemd's EnvironmentFile= reads them (comments, quotes)."""
    values = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith(("#", ";")):
            key, _, value = line.partition("=")
            words = shlex.split(value)
            values[key.strip()] = words[0] if words else ""
    return values


def test_the_settings_file_example_is_valid_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    values = _env_file(ENV_EXAMPLE)
    for key in list(os.environ):
        if key.startswith("SHOKUNIN_"):
            monkeypatch.delenv(key)
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    # Left empty, the token stops every process (auth is required behind the proxy).
    assert values["SHOKUNIN_AUTH_TOKEN"] == ""
    with pytest.raises(ValidationError, match="auth_token"):
        Settings(_env_file=None)
    monkeypatch.setenv("SHOKUNIN_AUTH_TOKEN", "a-token-of-sixteen-chars-or-more")
    settings = Settings(_env_file=None)
    assert settings.resolved_database_url.startswith("postgresql+asyncpg://")
    assert settings.allowed_hosts and settings.forwarded_allow_ips
    assert settings.tools_dirs[0].is_relative_to(settings.data_dir)
    assert settings.tool_settings_file.is_relative_to(settings.data_dir)
    assert "SHOKUNIN_PORT" not in values  # each web unit's port is its instance


# -- deploy/nginx.conf, read --------------------------------------------------------------

@dataclass
class Location:
    modifier: str  # "", "=", "~", "~*", "^~"
    pattern: str
    body: str

    def matches(self, path: str) -> bool:
        if self.modifier == "=":
            return path == self.pattern
        if self.modifier in ("~", "~*"):
            flags = re.I if self.modifier == "~*" else 0
            return re.search(self.pattern, path, flags) is not None
        return path.startswith(self.pattern)

    def directive(self, name: str) -> str | None:
        found = re.search(rf"^\s*{name}\s+([^;]+);", self.body, re.M)
        return found[1].strip() if found else None


def _locations(conf: str) -> list[Location]:
    found = []
    for match in re.finditer(r"^\s*location\s+(?:(=|~\*|~|\^~)\s+)?(\S+)\s*\{", conf, re.M):
        end = conf.index("}", match.end())  # the locations here hold no nested blocks
        found.append(Location(match[1] or "", match[2], conf[match.end():end]))
    return found


def _chosen(locations: list[Location], path: str) -> Location:
    """The location nginx serves ``path`` from: an exact match, else the longest prefix
    if ``^~``, else the first regular expression that matches, else the longest prefix."""
    for loc in locations:
        if loc.modifier == "=" and loc.matches(path):
            return loc
    prefixes = [loc for loc in locations if loc.modifier in ("", "^~") and loc.matches(path)]
    longest = max(prefixes, key=lambda loc: len(loc.pattern), default=None)
    if longest is None or longest.modifier != "^~":
        for loc in locations:
            if loc.modifier in ("~", "~*") and loc.matches(path):
                return loc
    assert longest is not None, f"no location serves {path}"
    return longest


def _seconds(value: str | None) -> float:
    if value is None:
        return 60.0  # nginx's default proxy_read_timeout
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    return float(value[:-1]) * units[value[-1]] if value[-1] in units else float(value)


def _app_routes(data_dir: Path) -> tuple[list[str], list[str]]:
    """(SSE routes, WebSocket routes) of the app, with a value in each path parameter."""
    from shokunin.api import create_app

    app = create_app(Settings(_env_file=None, data_dir=data_dir))
    contexts = ([(r, r.path) for r in app.routes] if iter_route_contexts is None else
                [(c.original_route, c.path) for c in iter_route_contexts(app.routes)])
    sse, ws = [], []
    for route, path in contexts:
        sample = re.sub(r"{[^}]+}", "x1", path)
        if isinstance(route, APIWebSocketRoute):
            ws.append(sample)
        elif isinstance(route, APIRoute) and "EventSource" in getattr(
                route.response_class, "__name__", ""):
            sse.append(sample)
    return sse, ws


def test_nginx_conf_keeps_streams_unbuffered_and_sessions_sticky(tmp_path: Path) -> None:
    conf = NGINX_CONF.read_text(encoding="utf-8")
    upstream = re.search(r"upstream\s+shokunin\s*\{([^}]*)\}", conf)
    assert upstream and re.search(r"^\s*ip_hash;", upstream[1], re.M), "ip_hash: Socket.IO"
    assert len(re.findall(r"^\s*server\s+\S+;", upstream[1], re.M)) >= 2
    size = re.search(r"client_max_body_size\s+(\d+)([kmg]?);", conf, re.I)
    assert size is not None
    limit = int(size[1]) * {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[size[2].lower()]
    assert limit >= Settings.model_fields["max_upload_bytes"].default
    assert re.search(r"proxy_set_header\s+Upgrade\s+\$http_upgrade;", conf)
    assert re.search(r"proxy_set_header\s+Host\s+\$http_host;", conf)  # with its port
    locations = _locations(conf)
    sse, ws = _app_routes(tmp_path)
    assert len(sse) >= 5 and "/ws" in ws
    for path in sse:
        loc = _chosen(locations, path)
        assert loc.directive("proxy_buffering") == "off", f"SSE {path} would be buffered"
        assert _seconds(loc.directive("proxy_read_timeout")) >= 600, path
    for path in [*ws, "/socket.io/"]:
        loc = _chosen(locations, path)
        assert loc.directive("proxy_pass") == "http://shokunin", path
        assert _seconds(loc.directive("proxy_read_timeout")) >= 600, path


# -- nginx in front of two real servers -------------------------------------------------

TOKEN = f"deploy-test-{uuid.uuid4().hex}"
BEARER = {"Authorization": f"Bearer {TOKEN}"}


def render_nginx_conf(upstreams: list[int], port: int, prefix: Path) -> str:
    """deploy/nginx.conf as the http {} block of a whole configuration: the upstream's
    servers replaced by ``upstreams`` on 127.0.0.1, listening on ``port``, every file under
    ``prefix``, each request's upstream logged."""
    conf = NGINX_CONF.read_text(encoding="utf-8")
    servers = re.findall(r"^(\s*)server\s+[\w.-]+:\d+;\n", conf, re.M)
    assert len(servers) == len(upstreams), "the upstream's servers changed: update this test"
    lines = iter(f"{servers[0]}server 127.0.0.1:{p};\n" for p in upstreams)
    conf = re.sub(r"^\s*server\s+[\w.-]+:\d+;\n", lambda _: next(lines), conf, flags=re.M)
    conf, listens = re.subn(r"^(\s*)listen\s+80;", rf"\1listen 127.0.0.1:{port};", conf,
                            flags=re.M)
    assert listens == 1, "deploy/nginx.conf should listen on port 80 once"
    temp = "\n".join(f"    {kind}_temp_path {prefix / kind};"
                     for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    user = "user root;\n" if os.geteuid() == 0 else ""  # workers may then read the prefix
    return (f"{user}worker_processes 1;\nevents {{ worker_connections 512; }}\nhttp {{\n"
            f"    log_format upstreams '$request_method $request_uri $upstream_addr $status';\n"
            f"    access_log {prefix / 'access.log'} upstreams;\n{temp}\n{conf}\n}}\n")


class Nginx:
    def __init__(self, upstreams: list[int], prefix: Path) -> None:
        self.port = free_port()
        self.prefix = prefix
        prefix.mkdir(parents=True, exist_ok=True)
        self.conf = prefix / "nginx.conf"
        self.conf.write_text(render_nginx_conf(upstreams, self.port, prefix), encoding="utf-8")
        self.log = prefix / "stderr.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Nginx:
        with open(self.log, "wb") as err:
            self.proc = subprocess.Popen(
                [NGINX, "-e", "stderr", "-p", str(self.prefix), "-c", str(self.conf), "-g",
                 f"daemon off; pid {self.prefix / 'nginx.pid'};"],
                stdout=err, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nginx exited:\n{self.log.read_text()}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return self
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"nginx did not listen:\n{self.log.read_text()}")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()  # SIGTERM: nginx's fast shutdown
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def requests(self, prefix: str) -> list[tuple[str, str, str]]:
        """(method and URI, upstream, status) of each logged request under ``prefix``."""
        rows = []
        for line in (self.prefix / "access.log").read_text().splitlines():
            method, uri, upstream, status = line.split(" ")
            if uri.startswith(prefix):
                rows.append((f"{method} {uri}", upstream, status))
        return rows


@dataclass
class Deployment:
    nginx: Nginx
    servers: list[LiveServer]


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    """Two ``shokunin serve`` bound as in compose.yaml (every address, a token), on one
    PostgreSQL database and one Redis, behind deploy/nginx.conf."""
    if not Path(NGINX).is_file():
        pytest.skip("nginx is not installed: apt-get install -y nginx-light (Debian)")
    if not redis_available():
        pytest.skip(f"no Redis at {REDIS_URL} (set SHOKUNIN_TEST_REDIS_URL)")
    root = tmp_path_factory.mktemp("deployment")
    name = f"shokunin_deploy_{uuid.uuid4().hex[:10]}"
    psql(f'CREATE DATABASE "{name}"')
    servers: list[LiveServer] = []
    nginx = None
    try:
        env = {"SHOKUNIN_DATABASE_URL": PG_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}",
               "SHOKUNIN_REDIS_URL": REDIS_URL,
               "SHOKUNIN_REDIS_NAMESPACE": f"deploy-{uuid.uuid4().hex[:8]}",
               "SHOKUNIN_HOST": "0.0.0.0", "SHOKUNIN_AUTH_TOKEN": TOKEN,
               "SHOKUNIN_FORWARDED_ALLOW_IPS": '["127.0.0.1"]'}
        for i in range(2):
            folder = root / f"web{i + 1}"
            make_tool(folder / "tool", "slow", SLOW_TOOL)
            servers.append(LiveServer(folder, env=env))
        for server in servers:
            server.start()
        nginx = Nginx([s.port for s in servers], root / "nginx").start()
        yield Deployment(nginx, servers)
    finally:
        if nginx is not None:
            nginx.stop()
        for server in servers:
            server.stop()
        psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


needs_postgres = pytest.mark.skipif(not postgres_available(),
                                    reason="PostgreSQL not reachable on 127.0.0.1:5432")


def _status(url: str, run_id: str) -> str:
    response = httpx.get(f"{url}/api/runs/{run_id}", headers=BEARER, timeout=10)
    assert response.status_code == 200, response.text
    return str(response.json()["status"])


@needs_postgres
def test_sse_through_nginx_arrives_while_the_run_goes_on(deployment: Deployment) -> None:
    """A run's events reach the client through nginx as they are sent: its first progress
    arrives while the run is still running, on the stream that started it (POST) and on a
    follower's (GET /api/runs/{id}/events)."""
    url = deployment.nginx.url
    steps = 40  # 4 s
    started = threading.Event()
    seen: dict[str, Any] = {"events": []}

    def client() -> None:
        with httpx.stream("POST", f"{url}/api/tools/slow/execute/stream", headers=BEARER,
                          json={"args": {"steps": steps}}, timeout=60) as stream:
            assert stream.status_code == 200, stream.read()
            for event, data in sse(stream.iter_lines()):
                seen["events"].append(event)
                if event == "started":
                    seen["run_id"] = data["run_id"]
                    started.set()
                elif event == "progress" and "status_at_first" not in seen:
                    seen["status_at_first"] = _status(url, seen["run_id"])

    thread = threading.Thread(target=client, daemon=True)
    thread.start()
    assert started.wait(30), "no `started` event came through nginx"
    run_id = seen["run_id"]
    with httpx.stream("GET", f"{url}/api/runs/{run_id}/events", headers=BEARER,
                      timeout=60) as stream:
        assert stream.status_code == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        follower = sse(stream.iter_lines())
        first = next(follower)[1]
        assert _status(url, run_id) == "running", "the first event came only at the end"
        rest = [data for event, data in follower if event != "end"]
    thread.join(timeout=30)
    assert not thread.is_alive()
    assert seen["status_at_first"] == "running", "the POST stream was buffered"
    assert seen["events"].count("progress") == steps and seen["events"][-1] == "result"
    live = [first, *rest]
    assert [e["seq"] for e in live] == list(range(1, len(live) + 1))
    assert live[-1]["kind"] == "run_completed"


@needs_postgres
def test_the_workbench_websocket_through_nginx(deployment: Deployment) -> None:
    """``WS /ws`` through nginx, as a browser opens it (its Origin, which the server
    compares with the Host nginx passes on, port included): the map on connect, then a
    question answered to its end."""
    import websockets

    nginx = deployment.nginx

    async def talk() -> list[dict[str, Any]]:
        headers = {**BEARER, "Origin": nginx.url}
        async with websockets.connect(f"ws://127.0.0.1:{nginx.port}/ws", max_size=None,
                                      additional_headers=headers) as ws:
            messages = [json.loads(await asyncio.wait_for(ws.recv(), 10))]
            await ws.send(json.dumps({"message": "how many rooms are on 2F?"}))
            async with asyncio.timeout(30):
                while not messages[-1].get("done"):
                    messages.append(json.loads(await ws.recv()))
            return messages

    messages = in_own_loop(talk())
    assert messages[0]["type"] == "map_definition"
    assert any(m["type"] == "text" for m in messages), [m["type"] for m in messages]
    assert messages[-1]["type"] == "debug" and messages[-1]["content"]["run"] == "completed"
    upgrades = [r for r in nginx.requests("/ws") if r[0].startswith("GET /ws")]
    assert upgrades and all(status == "101" for _, _, status in upgrades), upgrades


@needs_postgres
def test_socketio_long_polling_through_nginx_stays_on_one_process(
        deployment: Deployment) -> None:
    """A Socket.IO session over long-polling only, through nginx with both servers up:
    every poll reaches the process that opened the session (ip_hash), so it connects,
    subscribes and gets a Studio project's events."""
    import aiohttp
    import socketio

    nginx = deployment.nginx
    for server in deployment.servers:  # both upstreams up
        assert httpx.get(f"{server.url}/health", timeout=5).status_code == 200

    async def watch() -> list[tuple[str, Any]]:
        events: list[tuple[str, Any]] = []
        # python-engineio sends connect()'s headers with the handshake only: the session's
        # own headers go with every poll (a browser sends its login cookie instead).
        session = aiohttp.ClientSession(headers=BEARER)
        sio = socketio.AsyncClient(reconnection=False, http_session=session)

        @sio.on("*")
        async def record(event: str, data: Any) -> None:
            events.append((event, data))

        async with httpx.AsyncClient(base_url=nginx.url, headers=BEARER, timeout=30) as http:
            created = await http.post("/api/projects", json={
                "name": "雨", "concept": {"description": "雨の街を走る", "platform": "web",
                                         "scope": "mvp"}})
            assert created.status_code == 201, created.text
            pid = created.json()["id"]
            await sio.connect(f"{nginx.url}?dialect=seed", transports=["polling"],
                              wait_timeout=10)
            try:
                assert sio.transport() == "polling"
                assert (await sio.call("subscribe:project", pid, timeout=10))["ok"]
                assert (await http.post(f"/api/projects/{pid}/start")).status_code == 200
                await eventually(lambda: any(e == "checkpoint:created" for e, _ in events), 30,
                                 what="a checkpoint:created event")
            finally:  # the client would otherwise wait out its pending long-poll
                await sio.eio.disconnect(abort=True)
                await session.close()
        return events

    events = in_own_loop(watch())
    names = [e for e, _ in events]
    assert "checkpoint:created" in names and "agent:started" in names, names
    polls = nginx.requests("/socket.io/")
    assert len(polls) >= 4, polls
    assert len({upstream for _, upstream, _ in polls}) == 1, polls  # one process served all
    assert all(status in ("200", "499") for _, _, status in polls), polls  # 499: aborted
