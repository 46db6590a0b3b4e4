#!/usr/bin/env bash
# The sandbox and hostile tests as an unprivileged user: CI itself runs as root, where the
# sandbox drops each program to its own uid; this runs the other path, where the sandbox can only use
# user namespaces (`unshare -r -n -m`) and the calling user's own uid.
#
# As root: creates the user `tfr-ci` (useradd) once, then runs the tests as that user with runuser. When the
# interpreter lives in a directory that user cannot traverse (pyenv under /root here, mode 700), the tests run
# in a private mount namespace where that directory is covered by an empty tmpfs and the interpreter tree is
# bound back read-only (nothing changes on the host). As any other user: runs the tests directly.
#
# Usage: .ci/nonroot.sh [pytest args]   (default: tests/sandbox)
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
python="$repo/.venv/bin/python"
args=("$@")
# one process: the own-time tests load the cores on purpose, and a second worker's tests would meet that load
[ ${#args[@]} -gt 0 ] || args=(-n 0 tests/sandbox)
export TFR_BENCHMARK_DIR="${TFR_BENCHMARK_DIR:-$(cd .. && pwd)/shared/benchmarks}"

if [ "$(id -u)" != "0" ]; then
  exec "$python" -m pytest -p no:cacheprovider -q "${args[@]}"
fi

user=tfr-ci
id -u "$user" >/dev/null 2>&1 || useradd --system --user-group --no-create-home --shell /usr/sbin/nologin "$user"
home="$(mktemp -d /tmp/tfr-ci-home.XXXXXX)"
chown "$user:$user" "$home"
trap 'rm -rf "$home"' EXIT
prefix="$("$python" -c 'import os, sys; print(os.path.realpath(sys.base_prefix))')"

# The directory (if any) on the way to the interpreter that the user cannot traverse.
blocked=""
dir=""
IFS=/ read -ra parts <<<"${prefix#/}"
for part in "${parts[@]}"; do
  dir="$dir/$part"
  if ! runuser -u "$user" -- test -x "$dir"; then
    blocked="$dir"
    break
  fi
done

run_as_user=(runuser -u "$user" -- env -i "PATH=/usr/local/bin:/usr/bin:/bin" "HOME=$home" "CI=${CI:-}"
  "TFR_BENCHMARK_DIR=$TFR_BENCHMARK_DIR" "TFR_CACHE_DIR=$home/cache" PYTHONDONTWRITEBYTECODE=1
  "$python" -m pytest -p no:cacheprovider -q "${args[@]}")
echo "non-root tests as $user (uid $(id -u "$user")); interpreter $prefix; untraversable: ${blocked:-none}"
if [ -z "$blocked" ]; then
  "${run_as_user[@]}"
  exit
fi
# shellcheck disable=SC2016 # expanded by the inner shell
unshare -m --propagation private bash -euc '
  stage=$(mktemp -d /run/tfr-ci-python.XXXXXX)
  mount --bind "$1" "$stage"
  mount -t tmpfs -o mode=0755,size=1m tmpfs "$2"
  mkdir -p "$1"
  mount --bind "$stage" "$1"
  mount -o remount,bind,ro "$1"
  umount "$stage"
  rmdir "$stage"
  shift 2
  exec "$@"
' bash "$prefix" "$blocked" "${run_as_user[@]}"
