# Debian packages the scripts need, installed by name when they are missing (sourced by scripts/setup,
# scripts/services and deploy/smoke). A package counts as present only when dpkg has it installed: a
# command on PATH can come from elsewhere and lack what the package brings along (podman without the
# iptables that netavark drives, chromium without the CJK fonts).

# debian_missing PACKAGE...: print those of PACKAGE that dpkg does not have installed, one a line.
debian_missing() {
  local package
  for package in "$@"; do
    dpkg-query -W -f='${Status}\n' "$package" 2>/dev/null | grep -q '^install ok installed$' ||
      echo "$package"
  done
}

# debian_install WHY PACKAGE...: install the missing ones (as root; quietly, without recommends, and
# without letting their own services start). Prints one line naming them, or nothing if none is
# missing. Not root: says what to run and returns 1.
debian_install() {
  local why=$1
  shift
  local missing
  mapfile -t missing < <(debian_missing "$@")
  [ ${#missing[@]} = 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "$why needs Debian's ${missing[*]}: sudo apt-get install ${missing[*]}" >&2
    return 1
  fi
  echo "· installing Debian's ${missing[*]} ($why)"
  export DEBIAN_FRONTEND=noninteractive
  if [ -z "${BOURSE_APT_UPDATED:-}" ]; then
    apt-get update -qq >/dev/null
    export BOURSE_APT_UPDATED=1
  fi
  # A policy-rc.d that refuses service starts for the time of the install, unless the machine has one.
  local policy=/usr/sbin/policy-rc.d own_policy=no status=0 log
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && own_policy=yes
  fi
  log=$(mktemp)
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >"$log" 2>&1 || status=$?
  [ "$own_policy" = yes ] && rm -f "$policy"
  [ "$status" = 0 ] || { tail -20 "$log" >&2; echo "apt-get install ${missing[*]} failed" >&2; }
  rm -f "$log"
  return "$status"
}
