# Sourced by the install scripts: apt-get that waits while another install holds the package manager's locks,
# instead of failing at once (a fresh clone's `make test` stopped on a held dpkg lock while another install ran).
# APT_LOCK_WAIT_S (default 600) bounds the wait.

APT_LOCK_WAIT_S=${APT_LOCK_WAIT_S:-600}
APT_RETRY_S=${APT_RETRY_S:-10}
# apt waits this long for the dpkg lock itself (apt >= 1.9.11: Debian 11, Ubuntu 20.04 and later)
APT_WAIT_OPTIONS=(-o "DPkg::Lock::Timeout=${APT_LOCK_WAIT_S}")

# apt_update [PREFIX...]: `PREFIX apt-get update`, tried again every APT_RETRY_S while it fails (a lock is held)
apt_update() {
    local deadline=$(( $(date +%s) + APT_LOCK_WAIT_S ))
    until "$@" apt-get "${APT_WAIT_OPTIONS[@]}" update -q; do
        if [ "$(date +%s)" -ge "$deadline" ]; then
            echo "apt-get update failed for ${APT_LOCK_WAIT_S} s; is another install still running?" >&2
            return 1
        fi
        echo "apt-get update failed (another install may hold its lock); trying again in ${APT_RETRY_S} s" >&2
        sleep "$APT_RETRY_S"
    done
}
