# shokunin: one image for both kinds of process of the scaled-out topology,
#   docker run ... shokunin            -> `shokunin serve` (HTTP, WebSocket, SSE, Socket.IO)
#   docker run ... shokunin worker     -> `shokunin worker` (takes runs from the job queue)
# compose.yaml runs two of each behind nginx; docs/operations.md, "Deploying several
# processes", says how.
FROM python:3.12-slim-bookworm

# libseccomp2: the sandbox loads its seccomp filter through it (pyseccomp, ctypes), and no
# kernel starts without the filter where the host has seccomp (docs/threat-model.md).
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libseccomp2 \
    && rm -rf /var/lib/apt/lists/*

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# The installation must be readable by every user (umask 022, the default here): a root
# server's kernels run as uids of their own and import from it (docs/sandbox.md).
WORKDIR /usr/src/shokunin
COPY pyproject.toml README.md ./
COPY src ./src
RUN umask 022 && pip install '.[postgres]' && cd / && rm -rf /usr/src/shokunin

# Everything a process keeps goes to /data, ONE volume shared by every web and worker
# process: uploads, the threads' workspaces, the tool folder and its settings, the SQLite
# default. Bound beyond loopback, `serve` refuses to start without SHOKUNIN_AUTH_TOKEN.
ENV SHOKUNIN_DATA_DIR=/data \
    SHOKUNIN_TOOLS_DIRS='["/data/tool"]' \
    SHOKUNIN_TOOL_SETTINGS_FILE=/data/userdata/tool_settings.json \
    SHOKUNIN_MCP_CONFIG=/data/userdata/mcp.json \
    SHOKUNIN_HOST=0.0.0.0 \
    SHOKUNIN_PORT=8000
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8000

# Root on purpose. The sandbox's full walls need it: each kernel gets a uid of its own
# (620000 and up), its own mount, network and IPC namespaces, and a private /tmp and
# /dev/shm mounted in them (docs/sandbox.md, "The walls"). As a normal user a kernel would
# share the server's uid and rely on Landlock and seccomp alone. For those namespaces and
# mounts the container needs CAP_SYS_ADMIN and no AppArmor profile that forbids mount
# (compose.yaml: cap_add, security_opt); the server's own filter then confines each kernel
# far more narrowly than Docker's profile would.
ENTRYPOINT ["shokunin"]
CMD ["serve"]
