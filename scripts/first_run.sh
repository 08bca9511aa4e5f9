#!/usr/bin/env bash
# A person's first run, as CI takes it (.ci/run): README's first command, run literally by a
# normal user (Debian's python3, in a folder that user owns), then one Analyst question and
# one Workbench plot whose cells must run (scripts/first_run_check.py). Needs root (to act
# as that user); skipped with a line saying so otherwise. The user is the first one with a
# uid from 1000, or `shokunin-first-run`, made here.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" != "0" ] || ! command -v runuser >/dev/null || [ ! -x /usr/bin/python3 ]; then
  echo "first run as a normal user: skipped (needs root, runuser and /usr/bin/python3)"
  exit 0
fi
user=$(getent passwd | awk -F: '$3 >= 1000 && $3 < 60000 && $7 !~ /nologin|false/ {print $1; exit}')
if [ -z "$user" ]; then
  user=shokunin-first-run
  useradd --create-home --shell /bin/bash "$user"
fi
home=$(getent passwd "$user" | cut -d: -f6)
folder=$(runuser -u "$user" -- mktemp -d "$home/shokunin-first-run.XXXXXX")  # 0700, theirs
server=""
cleanup() {
  [ -n "$server" ] && kill -- -"$server" 2>/dev/null || true
  rm -rf "$folder"
}
trap cleanup EXIT

git ls-files -co --exclude-standard -z | tar --null -T - -cf - | runuser -u "$user" -- tar -xf - -C "$folder"
command=$(sed -n '/^```bash$/{n;p;q}' README.md)  # README's first command, as written
case "$command" in python3\ -m\ venv*shokunin\ serve*) ;; *)
  echo "README's first command is not the install-and-serve line: $command" >&2; exit 1;;
esac
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "first run as $user in $folder: $command (SHOKUNIN_PORT=$port)"
# Its own session, so the whole group (pip, the server, its kernels) is stopped at the end
# (the rest of the environment stays: a proxy's or a certificate's settings pip may need)
setsid runuser -u "$user" -- env -u VIRTUAL_ENV -u PYTHONPATH -u PYTHONHOME HOME="$home" \
  USER="$user" PATH=/usr/bin:/bin LANG=C.UTF-8 SHOKUNIN_PORT="$port" \
  sh -c "cd '$folder' && $command" > "$folder.log" 2>&1 &
server=$!
if ! /usr/bin/python3 scripts/first_run_wait.py "http://127.0.0.1:$port/health" "$server"; then
  tail -n 30 "$folder.log" >&2; rm -f "$folder.log"; exit 1
fi
status=0
"$folder/.venv/bin/python" scripts/first_run_check.py "http://127.0.0.1:$port" || status=$?
[ "$status" = 0 ] || tail -n 30 "$folder.log" >&2
rm -f "$folder.log"
exit "$status"
